import type { Metadata } from "next";
import { Suspense } from "react";
import { AlertsView } from "@/components/alerts/AlertsView";
import { LoadingState } from "@/components/ui/StatusViews";

export const metadata: Metadata = { title: "Alerts" };

export default function AlertsPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading alerts" />}>
      <AlertsView />
    </Suspense>
  );
}
