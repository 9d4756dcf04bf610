import type { Metadata } from "next";
import { Suspense } from "react";
import { ProblemsView } from "@/components/problems/ProblemsView";
import { LoadingState } from "@/components/ui/StatusViews";

export const metadata: Metadata = { title: "Problems" };

export default function ProblemsPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading problems" />}>
      <ProblemsView />
    </Suspense>
  );
}
