import type { Metadata } from "next";
import { Suspense } from "react";
import { OverviewView } from "@/components/overview/OverviewView";
import { LoadingState } from "@/components/ui/StatusViews";

export const metadata: Metadata = { title: "Overview" };

export default function OverviewPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading the overview" />}>
      <OverviewView />
    </Suspense>
  );
}
