import type { Metadata } from "next";
import { Suspense } from "react";
import { ChainsView } from "@/components/chains/ChainsView";
import { LoadingState } from "@/components/ui/StatusViews";

export const metadata: Metadata = { title: "Chains" };

export default function ChainsPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading chains" />}>
      <ChainsView />
    </Suspense>
  );
}
