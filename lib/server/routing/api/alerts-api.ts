import { z } from "zod";
import type { AuditActor } from "../../audit/audit-actor";
import { listAlerts } from "../../db/routing-alerts";
import { ApiError, notFound } from "../../http/api-error";
import { resolveAlertByOperator } from "../operator-resolve";

export const ZAlertsQuery = z.object({
  status: z.enum(["firing", "resolved"]).default("firing"),
  limit: z.coerce.number().int().min(1).max(500).default(200),
});

/** GET alerts: the current firing alerts (or the latest resolved ones), newest first. */
export async function getAlerts(query: z.infer<typeof ZAlertsQuery>) {
  const rows = await listAlerts(query.status, query.limit);
  return {
    alerts: rows.map((row) => ({
      fingerprint: row.fingerprint,
      chainId: row.chainId,
      sessionId: row.sessionId,
      state: row.state,
      severity: row.severity,
      status: row.status,
      reasons: row.reasons,
      labels: row.labels,
      startsAt: row.startsAt.toISOString(),
      endsAt: row.endsAt?.toISOString() ?? null,
      confirmedAt: row.confirmedAt?.toISOString() ?? null,
      resolvedBy: row.resolvedBy,
    })),
  };
}

/** POST resolve: an operator resolves a firing alert; its receivers are told it is resolved. */
export async function postResolveAlert(fingerprint: string, actor: AuditActor) {
  const resolved = /^[0-9a-f]{16}$/.test(fingerprint)
    ? await resolveAlertByOperator(fingerprint, actor)
    : null;
  if (resolved === null) throw notFound("alert");
  if (resolved.length === 0) throw new ApiError(409, "not_firing", "the alert is not firing");
  return { fingerprint, status: "resolved" as const };
}
