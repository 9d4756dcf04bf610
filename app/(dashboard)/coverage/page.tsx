import type { Metadata } from "next";
import { Suspense } from "react";
import { CoverageView } from "@/components/coverage/CoverageView";
import { LoadingState } from "@/components/ui/StatusViews";

export const metadata: Metadata = { title: "Outcome coverage" };

export default function CoveragePage() {
  return (
    <Suspense fallback={<LoadingState label="Loading coverage" />}>
      <CoverageView />
    </Suspense>
  );
}
