import type { QueueName, TriageItemView } from "@/lib/dashboard/api-types";
import type { Prisma } from "@/lib/generated/prisma/client";
import { ApiError, notFound } from "../http/api-error";
import { type TriageItemState, type TriageOutcome, UNTOUCHED_ITEM } from "../triage/triage-transitions";
import { resolveChainAlertsInTransaction } from "../alerts/operator-resolve";
import { lockChains } from "./chain-writes";
import { getPrisma } from "./client";
import { prismaSql } from "./sql";

type Tx = Prisma.TransactionClient;

/**
 * Runs one triage decision atomically: reads the chain and its item under a row lock, lets `decide` compute the
 * next item and the audit event, writes both. A chain may be triaged in a queue while it is in that queue (by
 * state or shadowed state), or later if it already has an item there (to note or reopen after it moved on).
 */
export async function changeTriageItem(
  chainId: string,
  queue: QueueName,
  actor: string,
  decide: (current: TriageItemState) => TriageOutcome,
): Promise<TriageItemView> {
  return getPrisma().$transaction(async (tx) => {
    // The chain's lock first, as every writer of its state and alerts takes it: no lock-order deadlock with
    // ingestion or reconciliation.
    await lockChains(prismaSql(tx), [chainId]);
    const chain = await tx.chain.findUnique({
      where: { chainId },
      select: { state: true, shadowedState: true },
    });
    if (!chain) throw notFound("chain");
    const stored = await lockTriageItem(tx, chainId, queue);
    const inQueue = chain.state === queue || chain.shadowedState === queue;
    if (!inQueue && !stored) {
      throw new ApiError(409, "not_in_queue", `the chain is not in the ${queue} queue`, [
        { path: "$.queue", code: "not_in_queue", message: `chain state is ${chain.state}` },
      ]);
    }
    const { next, event } = decide(stored ?? UNTOUCHED_ITEM);
    const saved = await tx.triageItem.upsert({
      where: { chainId_queue: { chainId, queue } },
      create: { chainId, queue, ...next },
      update: { ...next, updatedAt: new Date() },
    });
    await tx.triageEvent.create({
      data: { chainId, queue, actor, action: event.action, note: event.note, data: event.data },
    });
    // Resolving the item resolves the queue state's alert too, in the same transaction (receivers get "resolved").
    if (next.status === "resolved" && stored?.status !== "resolved") {
      await resolveChainAlertsInTransaction(tx, chainId, actor, [queue]);
    }
    return toTriageItemView(saved);
  });
}

/** The item, locked for this transaction; concurrent actions on one item apply one after the other. */
async function lockTriageItem(tx: Tx, chainId: string, queue: QueueName): Promise<TriageItemState | null> {
  // Serialise on (chain, queue) even before the item exists, so two first actions cannot both insert.
  await tx.$queryRaw`select pg_advisory_xact_lock(hashtextextended(${`triage:${chainId}:${queue}`}, 0))::text`;
  const row = await tx.triageItem.findUnique({ where: { chainId_queue: { chainId, queue } } });
  return row ? { ...row, status: row.status as TriageItemState["status"] } : null;
}

/** Marks the chain's item in `queue` resolved by `actor` (reconciliation settles the effect-unknown item). */
export async function resolveTriageItem(tx: Tx, chainId: string, queue: QueueName, actor: string, now: Date) {
  await tx.triageItem.upsert({
    where: { chainId_queue: { chainId, queue } },
    create: { chainId, queue, status: "resolved", resolvedAt: now, resolvedBy: actor },
    update: { status: "resolved", resolvedAt: now, resolvedBy: actor, updatedAt: now },
  });
}

type ItemRow = Prisma.TriageItemGetPayload<Record<string, never>>;

export function toTriageItemView(row: ItemRow): TriageItemView {
  return {
    queue: row.queue as QueueName,
    status: row.status as TriageItemView["status"],
    owner: row.owner,
    acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy: row.acknowledgedBy,
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
    resolvedBy: row.resolvedBy,
    updatedAt: row.updatedAt.toISOString(),
  };
}
