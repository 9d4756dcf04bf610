import type { QueueName } from "@/lib/dashboard/api-types";
import type { TriageItemState } from "@/lib/triage/transitions";
import type { Caller } from "../http/authenticate";
import { actorName } from "../http/authenticate";

/** Who acted, as the audit log records them: the user's id when a person did it, none for a key. */
export function auditActor(caller: Caller) {
  return { actorUserId: caller.kind === "user" ? caller.userId : null, actor: actorName(caller) };
}

/** A triage item as the audit log's before/after shows it: names, not only ids, so the log reads on its own. */
export function triageAuditView(queue: QueueName, item: TriageItemState) {
  return {
    queue,
    status: item.status,
    assignee: item.assignee ? { id: item.assignee.id, username: item.assignee.username } : null,
    acknowledgedBy: item.acknowledgedBy,
    resolvedBy: item.resolvedBy,
  };
}
