import type { AuditActor } from "../audit/audit-actor";
import { appendAuditEvent } from "../db/audit-events";
import { resolveAlertsByOperator } from "../db/routing-alerts";
import { lockChains } from "../db/chain-writes";
import { getPrisma } from "../db/client";
import { prismaSql } from "../db/sql";

/**
 * Resolves one firing alert by hand, audited in the same transaction. Null when there is no such alert; [] when it
 * was not firing (nothing changed, nothing audited).
 */
export async function resolveAlertByOperator(
  fingerprint: string,
  actor: AuditActor,
): Promise<string[] | null> {
  return getPrisma().$transaction(async (tx) => {
    const alert = await tx.alert.findUnique({ where: { fingerprint }, select: { chainId: true } });
    if (!alert) return null;
    await lockChains(prismaSql(tx), [alert.chainId]);
    const resolvedBy = `operator:${actor.actor}`;
    const resolved = await resolveAlertsByOperator(tx, { fingerprint }, resolvedBy, new Date());
    if (resolved.length > 0)
      await appendAuditEvent(tx, {
        ...actor,
        action: "alert.resolve",
        targetType: "alert",
        targetId: fingerprint,
        before: { chainId: alert.chainId, status: "firing" },
        after: { chainId: alert.chainId, status: "resolved", resolvedBy },
      });
    return resolved.map((r) => r.fingerprint);
  });
}
