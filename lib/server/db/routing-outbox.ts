import { poolSql, prepared, type Sql } from "./sql";

// Prepared: routing runs these for every alert, and none has a plan to choose (a lock, a check, the oldest ids).
const LOCK_OUTBOX = prepared(
  "receipt_lock_outbox",
  "select pg_try_advisory_xact_lock(hashtextextended('receipt:alert-outbox', 0)) as locked",
);
const OUTBOX_PENDING = prepared(
  "receipt_outbox_pending",
  "select exists (select 1 from alert_outbox) as pending",
);
const TAKE_OUTBOX_EVENTS = prepared(
  "receipt_take_outbox_events",
  `delete from alert_outbox where id in (select id from alert_outbox order by id limit $1)
    returning fingerprint, created_at as "createdAt"`,
);

/**
 * One outbox consumer at a time across all app instances (a transaction-scoped advisory lock; the others skip this
 * tick). Routing an event is cheap, and a single consumer sees events in commit order without row-lock races.
 */
export async function tryLockOutbox(sql: Sql): Promise<boolean> {
  const [row] = await sql.query<{ locked: boolean }>(LOCK_OUTBOX);
  return row?.locked ?? false;
}

/** A cheap check before opening a transaction: is there anything to route? */
export async function outboxHasPending(): Promise<boolean> {
  const [row] = await poolSql().query<{ pending: boolean }>(OUTBOX_PENDING);
  return row?.pending ?? false;
}

/**
 * The oldest events, removed in the caller's transaction: they are gone once it commits (routed), and back if it
 * rolls back. Deleting instead of marking events processed writes no new row version and no index entry per event,
 * and leaves nothing to prune.
 */
export async function takeOutboxEvents(
  sql: Sql,
  limit: number,
): Promise<{ fingerprint: string; createdAt: Date }[]> {
  return sql.query<{ fingerprint: string; createdAt: Date }>(TAKE_OUTBOX_EVENTS, [limit]);
}
