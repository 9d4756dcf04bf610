import type { Prisma } from "@/lib/generated/prisma/client";
import type { AuditActor } from "../audit/audit-actor";
import { appendAuditEvent } from "../db/audit-events";
import { resolveAlertsByOperator } from "../db/routing-alerts";
import { lockChains } from "../db/chain-writes";
import { getPrisma } from "../db/client";
import { prismaSql } from "../db/sql";

/**
 * For the triage queues: call inside the transaction that resolves a chain's item, so the receivers get the
 * resolved notification exactly when the item is resolved. `states`: the queue's state (false_success or
 * effect_unknown); omit to resolve all of the chain's alerts. The chain must be locked by the caller (lockChains),
 * like every other writer of its alerts.
 */
export async function resolveChainAlertsInTransaction(
  tx: Prisma.TransactionClient,
  chainId: string,
  actor: string,
  states?: string[],
): Promise<string[]> {
  const resolved = await resolveAlertsByOperator(
    tx,
    { chainId, ...(states ? { states } : {}) },
    `operator:${actor}`,
    new Date(),
  );
  return resolved.map((r) => r.fingerprint);
}

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
