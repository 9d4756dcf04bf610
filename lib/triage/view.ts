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
