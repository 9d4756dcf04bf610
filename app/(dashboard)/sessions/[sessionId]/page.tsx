import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { SessionView } from "@/components/session/SessionView";
import { LoadingState } from "@/components/ui/StatusViews";
import { sessionExists } from "@/lib/server/db/chains";

type Props = { params: Promise<{ sessionId: string }> };

const sessionIdOf = async (params: Props["params"]) => decodeURIComponent((await params).sessionId);

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Session ${await sessionIdOf(params)}` };
}

/** A session no chain belongs to answers 404, after one index probe. */
export default async function SessionPage({ params }: Props) {
  const sessionId = await sessionIdOf(params);
  if (!(await sessionExists(sessionId))) notFound();
  return (
    <Suspense fallback={<LoadingState label="Loading the session" />}>
      <SessionView sessionId={sessionId} />
    </Suspense>
  );
}
