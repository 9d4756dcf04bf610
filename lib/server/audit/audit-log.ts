import type { AuditAction, AuditTargetType } from "@/lib/audit/audit-actions";
import type { AuditEventView, AuditPage } from "@/lib/audit/audit-view";
import { type AuditEventRow, findAuditEventPosition, listAuditEvents } from "../db/audit-events";
import { ApiError } from "../http/api-error";
import type { AuditQuery } from "./audit-query";

const view = (row: AuditEventRow): AuditEventView => ({
  id: row.id.toString(),
  at: row.at.toISOString(),
  actor: row.actor,
  actorUserId: row.actorUserId,
  action: row.action as AuditAction,
  targetType: row.targetType as AuditTargetType,
  targetId: row.targetId,
  before: row.before ?? null,
  after: row.after ?? null,
});

/**
 * A page of the audit log, newest first. `before` names the last event of the previous page; events are never
 * deleted, so an id no event has is a client's mistake (400), not an empty page.
 */
export async function readAuditLog(query: AuditQuery): Promise<AuditPage> {
  const cursor = query.before === undefined ? null : await findAuditEventPosition(BigInt(query.before));
  if (query.before !== undefined && !cursor)
    throw new ApiError(400, "invalid_query", "invalid query parameters", [
      { path: "$.query.before", code: "unknown_cursor", message: "no audit event has this id" },
    ]);
  const rows = await listAuditEvents({
    ...(query.actor ? { actor: query.actor } : {}),
    ...(query.action ? { actions: query.action } : {}),
    ...(query.targetType ? { targetType: query.targetType } : {}),
    ...(query.targetId ? { targetId: query.targetId } : {}),
    ...(query.since ? { since: new Date(query.since) } : {}),
    ...(query.until ? { until: new Date(query.until) } : {}),
    ...(cursor ? { before: cursor } : {}),
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return {
    events: page.map(view),
    nextCursor: rows.length > query.limit ? (page.at(-1)?.id.toString() ?? null) : null,
  };
}
