import type { Metadata } from "next";
import { Suspense } from "react";
import { SessionView } from "@/components/session/SessionView";
import { LoadingState } from "@/components/ui/StatusViews";

export const metadata: Metadata = { title: "Session" };

export default async function SessionPage({ params }: { params: Promise<{ sessionId: string }> }) {
  const sessionId = decodeURIComponent((await params).sessionId);
  return (
    <Suspense fallback={<LoadingState label="Loading the session" />}>
      <SessionView sessionId={sessionId} />
    </Suspense>
  );
}
