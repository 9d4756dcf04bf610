"use client";

import { ErrorState } from "@/components/ui/StatusViews";

/** A page that threw while rendering: say so, and let the person retry without reloading everything. */
export default function DashboardError({ error, reset }: { error: Error; reset: () => void }) {
  return <ErrorState error={error} what="this page" onRetry={reset} />;
}
