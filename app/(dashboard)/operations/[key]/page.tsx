import type { Metadata } from "next";
import { Suspense } from "react";
import { OperationView } from "@/components/operations/OperationView";
import { LoadingState } from "@/components/ui/StatusViews";

type Props = { params: Promise<{ key: string }> };

const keyOf = async (params: Props["params"]) => decodeURIComponent((await params).key);

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Operation ${await keyOf(params)}` };
}

/** An operation key never seen still has a page: its status is `none`. */
export default async function OperationPage({ params }: Props) {
  const operationKey = await keyOf(params);
  return (
    <Suspense fallback={<LoadingState label="Loading the operation" />}>
      <OperationView operationKey={operationKey} />
    </Suspense>
  );
}
