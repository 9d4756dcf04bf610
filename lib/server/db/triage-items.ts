import type { OperatorEffect } from "@/lib/chains/operator-evidence";
import type { ReconcileHead } from "@/lib/chains/reconcile";
import type { HealthRecord } from "@/lib/contract";
import type { QueueName } from "@/lib/dashboard/api-types";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { TriageItemState } from "@/lib/triage/transitions";

type Tx = Prisma.TransactionClient;

/** An item with its assignee's names, as the views show it. */
export const ITEM_WITH_ASSIGNEE = {
  include: { assignee: { select: { id: true, username: true, displayName: true } } },
} as const;
export type TriageItemRow = Prisma.TriageItemGetPayload<typeof ITEM_WITH_ASSIGNEE>;

/** The chain's state and shadowed state; null when there is no such chain. */
export async function readChainStates(tx: Tx, chainId: string) {
  return tx.chain.findUnique({ where: { chainId }, select: { state: true, shadowedState: true } });
}

/** The chain and its current record, for reconciliation; null when there is no such chain. */
export async function readReconcileHead(tx: Tx, chainId: string): Promise<ReconcileHead | null> {
  const [row] = await tx.$queryRaw<
    {
      state: string;
      shadowed_state: string | null;
      current_seq: bigint;
      record_count: number;
      body: HealthRecord;
    }[]
  >`
    select c.state, c.shadowed_state, c.current_seq, c.record_count, r.body
    from chains c join health_records r on r.seq = c.current_seq
    where c.chain_id = ${chainId}`;
  if (!row) return null;
  return {
    chainId,
    state: row.state,
    shadowedState: row.shadowed_state,
    currentSeq: row.current_seq,
    recordCount: row.record_count,
    record: row.body,
  };
}

/** The item, locked for this transaction; concurrent actions on one item apply one after the other. */
export async function lockTriageItem(
  tx: Tx,
  chainId: string,
  queue: QueueName,
): Promise<TriageItemState | null> {
  // Serialise on (chain, queue) even before the item exists, so two first actions cannot both insert.
  await tx.$queryRaw`select pg_advisory_xact_lock(hashtextextended(${`triage:${chainId}:${queue}`}, 0))::text`;
  const row = await tx.triageItem.findUnique({
    where: { chainId_queue: { chainId, queue } },
    ...ITEM_WITH_ASSIGNEE,
  });
  return row ? toTriageItemState(row) : null;
}

export function toTriageItemState(row: TriageItemRow): TriageItemState {
  return {
    status: row.status as TriageItemState["status"],
    assignee: row.assignee,
    acknowledgedAt: row.acknowledgedAt,
    acknowledgedBy: row.acknowledgedBy,
    resolvedAt: row.resolvedAt,
    resolvedBy: row.resolvedBy,
  };
}

export async function saveTriageItem(
  tx: Tx,
  chainId: string,
  queue: QueueName,
  next: TriageItemState,
): Promise<TriageItemRow> {
  const { assignee, ...fields } = next;
  const stored = { ...fields, assigneeUserId: assignee?.id ?? null };
  return tx.triageItem.upsert({
    where: { chainId_queue: { chainId, queue } },
    create: { chainId, queue, ...stored },
    update: { ...stored, updatedAt: new Date() },
    ...ITEM_WITH_ASSIGNEE,
  });
}

/** The chain's alerts in the queue's state follow the item's assignee: their notifications go to the new one. */
export async function assignChainAlerts(
  tx: Tx,
  chainId: string,
  state: QueueName,
  assigneeUserId: string | null,
) {
  await tx.alert.updateMany({ where: { chainId, state }, data: { assigneeUserId } });
}

/** Marks the chain's item in `queue` resolved by `actor` (reconciliation settles the effect-unknown item). */
export async function resolveTriageItem(tx: Tx, chainId: string, queue: QueueName, actor: string, now: Date) {
  return tx.triageItem.upsert({
    where: { chainId_queue: { chainId, queue } },
    create: { chainId, queue, status: "resolved", resolvedAt: now, resolvedBy: actor },
    update: { status: "resolved", resolvedAt: now, resolvedBy: actor, updatedAt: now },
    ...ITEM_WITH_ASSIGNEE,
  });
}

export type TriageEventInsert = {
  chainId: string;
  queue: QueueName;
  actor: string;
  action: string;
  note: string | null;
  data: Record<string, string | boolean | null>;
  at?: Date;
};

/** One line of the audit trail. */
export async function insertTriageEvent(tx: Tx, event: TriageEventInsert): Promise<void> {
  await tx.triageEvent.create({ data: event });
}

/** Destination evidence an operator recorded; returns its id. */
export async function insertOperatorEffect(
  tx: Tx,
  effect: OperatorEffect & { chainId: string; actor: string; note: string | null },
): Promise<bigint> {
  const { outcome, ...rest } = effect;
  const row = await tx.operatorEffect.create({
    data: {
      ...rest,
      outcomeVerdict: outcome?.verdict ?? null,
      outcomeVerifier: outcome?.verifier ?? null,
      outcomeReceipt: outcome?.receipt ?? null,
    },
    select: { id: true },
  });
  return row.id;
}
