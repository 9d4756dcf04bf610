import { randomUUID } from "node:crypto";
import type { Prisma } from "@/lib/generated/prisma/client";
import { prepared, prismaSql, type Sql, type TransactionSql } from "./sql";

// Wake-ups through PostgreSQL: NOTIFY is delivered when the transaction commits (never when it rolls back), to every
// session LISTENing on the channel (wake-listener.ts), this instance's own included. In a transaction of
// `inTransaction` this instance is also told directly after the commit, so it does not depend on its LISTEN
// connection; the notification then carries this instance's id, and its own listener lets it pass (it would run the
// job a second time for nothing: another claim, another routing run).

export const WAKE_CHANNELS = {
  /** Outbox events were appended: alert routing has work. */
  alertOutbox: "receipt_alert_outbox",
  /** Deliveries were inserted or made due: the delivery job has work. */
  deliveries: "receipt_deliveries",
} as const;

export type WakeChannel = (typeof WAKE_CHANNELS)[keyof typeof WAKE_CHANNELS];

// The same payload for every notification of one transaction: PostgreSQL folds identical ones into one.
const NOTIFY = prepared("receipt_notify_wake_from", "select pg_notify($1, $2)");

/** Wakes the channel's job on every instance once the caller's transaction commits. */
export async function notifyWake(sql: Sql, channel: WakeChannel): Promise<void> {
  await sql.execute(NOTIFY, [channel, wakePayload(sql)]);
  wakeHereAfterCommit(sql, channel);
}

const instance = globalThis as unknown as { receiptInstanceId?: string };

/** This process's id among the instances, made on first use (on globalThis: shared by both of Next.js's bundles). */
function instanceId(): string {
  instance.receiptInstanceId ??= `receipt-${randomUUID()}`;
  return instance.receiptInstanceId;
}

/** The NOTIFY payload for a statement on `sql`: this instance's id when it is woken here after the commit, else ''. */
export function wakePayload(sql: Sql): string {
  return "afterCommit" in sql ? instanceId() : "";
}

/** A notification this instance sent from a transaction that also woke it directly: nothing more to do. */
export function isOwnWake(payload: string | undefined): boolean {
  return payload !== undefined && payload !== "" && payload === instance.receiptInstanceId;
}

/** This instance's part of notifyWake, for a statement that ran `pg_notify` itself (saving a round trip). */
export function wakeHereAfterCommit(sql: Sql, channel: WakeChannel): void {
  if ("afterCommit" in sql) (sql as TransactionSql).afterCommit(() => wakeHere(channel));
}

type WakeHandler = (channel: WakeChannel) => void;
type GroupTimerHandler = (at: Date) => void;
/** A delivery a commit of this instance inserted: enough to pick its lane before it is claimed. */
export type NewDelivery = { id: bigint; channel: string; targetIndex: number; targetType: string };
type NewDeliveriesHandler = (deliveries: NewDelivery[]) => void;
// On globalThis: Next.js bundles route handlers (which commit) and instrumentation (which runs the jobs) separately.
const local = globalThis as unknown as {
  receiptWakeHandler?: WakeHandler;
  receiptGroupTimerHandler?: GroupTimerHandler;
  receiptNewDeliveriesHandler?: NewDeliveriesHandler;
};

/** Where this instance's own commits wake its jobs (background.ts; unset when the workers do not run here). */
export function onWakeHere(handler: WakeHandler): void {
  local.receiptWakeHandler = handler;
}

function wakeHere(channel: WakeChannel): void {
  try {
    local.receiptWakeHandler?.(channel);
  } catch {
    // A wake-up is an optimisation: the commit stands, the safety tick catches up.
  }
}

export async function notifyWakeInPrisma(tx: Prisma.TransactionClient, channel: WakeChannel): Promise<void> {
  await notifyWake(prismaSql(tx), channel);
}

/**
 * Where a group a transaction of this instance scheduled arms the routing job's timer (jobs.ts; unset when the alert
 * jobs do not run here, or routing at commit is off): a commit that routed its own alerts tells the timer directly.
 */
export function onGroupScheduledHere(handler: GroupTimerHandler | undefined): void {
  local.receiptGroupTimerHandler = handler;
}

/** Where this instance's delivery engine takes the deliveries its own commits insert (unset: no engine here). */
export function onDeliveriesInsertedHere(handler: NewDeliveriesHandler | undefined): void {
  local.receiptNewDeliveriesHandler = handler;
}

/**
 * Wakes the delivery job for deliveries the caller's transaction inserted: the other instances through NOTIFY, and
 * this instance's engine, when it runs here, with the deliveries themselves after the commit, so it claims them by id
 * instead of searching the table for due rows.
 */
export async function announceDeliveries(sql: Sql, deliveries: NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  const handler = local.receiptNewDeliveriesHandler;
  if (!handler || !("afterCommit" in sql)) {
    await notifyWake(sql, WAKE_CHANNELS.deliveries);
    return;
  }
  await sql.execute(NOTIFY, [WAKE_CHANNELS.deliveries, wakePayload(sql)]);
  (sql as TransactionSql).afterCommit(() => {
    try {
      handler(deliveries);
    } catch {
      // As a wake-up: the safety tick catches up.
    }
  });
}

/** This instance runs the alert jobs and routes at commit: a transaction of `inTransaction` may route its alerts. */
export function routesAtCommitHere(sql: Sql): sql is TransactionSql {
  return local.receiptGroupTimerHandler !== undefined && "afterCommit" in sql;
}

/** Arms this instance's group timer for `at` once the caller's transaction commits. */
export function groupScheduledHereAfterCommit(sql: TransactionSql, at: Date): void {
  sql.afterCommit(() => {
    try {
      local.receiptGroupTimerHandler?.(at);
    } catch {
      // As a wake-up: the safety tick catches up.
    }
  });
}
