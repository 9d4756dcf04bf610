import type { AssigneeView, QueueName, TriageItemView } from "@/lib/dashboard/api-types";

/** A stored triage item, as the repositories read it, with its assignee's names. */
export type TriageItemFields = {
  queue: string;
  status: string;
  formerOwner: string | null;
  assignee: AssigneeView | null;
  acknowledgedAt: Date | null;
  acknowledgedBy: string | null;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  updatedAt: Date;
};

export function toTriageItemView(row: TriageItemFields): TriageItemView {
  return {
    queue: row.queue as QueueName,
    status: row.status as TriageItemView["status"],
    assignee: row.assignee,
    formerOwner: row.formerOwner,
    acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy: row.acknowledgedBy,
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
    resolvedBy: row.resolvedBy,
    updatedAt: row.updatedAt.toISOString(),
  };
}

export const TRIAGE_QUEUES: readonly QueueName[] = ["false_success", "effect_unknown"];

/** An item nobody has acted on yet: every chain in a queue's state is in that queue from its first record. */
export function untouchedItem(queue: QueueName): TriageItemView {
  return {
    queue,
    status: "open",
    assignee: null,
    formerOwner: null,
    acknowledgedAt: null,
    acknowledgedBy: null,
    resolvedAt: null,
    resolvedBy: null,
    updatedAt: null,
  };
}

/**
 * A chain's place in each triage queue: the queues its state or shadowed state puts it in (untouched unless someone
 * acted), and those it has left with an item on record (resolved, or still open after the state moved on).
 */
export function chainQueues(
  chain: { state: string; shadowed: { state: string } | null },
  items: readonly TriageItemView[],
): { queue: QueueName; item: TriageItemView; inQueue: boolean }[] {
  return TRIAGE_QUEUES.flatMap((queue) => {
    const inQueue = chain.state === queue || chain.shadowed?.state === queue;
    const item = items.find((found) => found.queue === queue);
    if (!inQueue && !item) return [];
    return [{ queue, item: item ?? untouchedItem(queue), inQueue }];
  });
}
