import type { Metadata } from "next";
import { Suspense } from "react";
import { QueueView } from "@/components/queues/QueueView";
import { LoadingState } from "@/components/ui/StatusViews";

export const metadata: Metadata = { title: "False success" };

export default function FalseSuccessQueuePage() {
  return (
    <Suspense fallback={<LoadingState label="Loading the queue" />}>
      <QueueView queue="false_success" />
    </Suspense>
  );
}
