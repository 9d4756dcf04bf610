import type { Metadata } from "next";
import { Suspense } from "react";
import { QueueView } from "@/components/queues/QueueView";
import { LoadingState } from "@/components/ui/StatusViews";

export const metadata: Metadata = { title: "Effect unknown" };

export default function EffectUnknownQueuePage() {
  return (
    <Suspense fallback={<LoadingState label="Loading the queue" />}>
      <QueueView queue="effect_unknown" />
    </Suspense>
  );
}
