// A lease that expired with no record is in doubt: the agent may have died after sending, and no chain exists to
// reconcile. What the destination shows settles it, read by an operator (POST /api/v1/operations/{key}/settle) or by a
// destination check (lib/server/checks/check-operation-service.ts): committed makes the guard answer
// already_committed, absent lets the next attempt proceed.
import { leaseState, type LeaseSettlement } from "@/lib/operations/status";
import type { OperationDetail } from "@/lib/operations/views";
import { appendAuditEventSql } from "../db/audit-events";
import { readOperation, readOperationAttempts, settleLease } from "../db/operations-store";
import { inTransaction } from "../db/sql";
import type { AuditActor } from "../audit/audit-actor";
import { ApiError, notFound } from "../http/api-error";
import { readOperationView } from "./operations-service";

/**
 * Settles the operation's expired lease, under its row lock; 409 `lease_not_in_doubt` (nothing written) when it has no
 * lease, or the lease is live, consumed by a record, or settled already.
 */
export async function settleOperationLease(
  key: string,
  settlement: Omit<LeaseSettlement, "at">,
  actor: AuditActor,
  now = new Date(),
): Promise<OperationDetail> {
  await inTransaction(async (sql) => {
    await sql.execute("select 1 from operations where operation_key = $1 for update", [key]);
    const operation = await readOperation(sql, key);
    if (!operation) throw notFound("operation");
    const attempts = await readOperationAttempts(sql, key);
    const lease = operation.lease;
    const state = lease ? leaseState(lease, attempts, now) : null;
    if (!lease || state !== "expired" || lease.settled) {
      const why = !lease
        ? "it has no lease"
        : lease.settled
          ? "its lease is settled already"
          : `its lease is ${state}`;
      throw new ApiError(
        409,
        "lease_not_in_doubt",
        "only a lease that expired with no record can be settled",
        [{ path: "$", code: "lease_not_in_doubt", message: why }],
      );
    }
    await settleLease(sql, key, { ...settlement, at: now });
    await appendAuditEventSql(sql, {
      ...actor,
      action: "operation.settle",
      targetType: "operation",
      targetId: key,
      before: { lease: "expired" },
      after: { effect: settlement.effect, receipt: settlement.receipt, by: settlement.by },
    });
  });
  return readOperationView(key, now);
}
