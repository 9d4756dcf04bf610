import type { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

type Tx = Prisma.TransactionClient;

/**
 * One outbox consumer at a time across all app instances (a transaction-scoped advisory lock; the others skip this
 * tick). Routing an event is cheap, and a single consumer sees events in commit order without row-lock races.
 */
export async function tryLockOutbox(tx: Tx): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ locked: boolean }[]>`
    select pg_try_advisory_xact_lock(hashtextextended('receipt:alert-outbox', 0)) as locked`;
  return row?.locked ?? false;
}

/** A cheap check before opening a transaction: is there anything to route? */
export async function outboxHasPending(): Promise<boolean> {
  const row = await getPrisma().alertOutbox.findFirst({ where: { processedAt: null }, select: { id: true } });
  return row !== null;
}

export async function readPendingOutbox(tx: Tx, limit: number) {
  return tx.alertOutbox.findMany({
    where: { processedAt: null },
    orderBy: { id: "asc" },
    take: limit,
    select: { id: true, fingerprint: true },
  });
}

export async function markOutboxProcessed(tx: Tx, ids: bigint[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await tx.alertOutbox.updateMany({ where: { id: { in: ids } }, data: { processedAt: now } });
}

/** Processed events are only history; keep a week of them for troubleshooting. */
export async function pruneProcessedOutbox(olderThan: Date): Promise<number> {
  const { count } = await getPrisma().alertOutbox.deleteMany({ where: { processedAt: { lt: olderThan } } });
  return count;
}
