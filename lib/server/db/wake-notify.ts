import type { Prisma } from "@/lib/generated/prisma/client";
import { prepared, prismaSql, type Sql } from "./sql";

// Cross-instance wake-ups through PostgreSQL: NOTIFY is delivered when the transaction commits (never when it rolls
// back), to every session LISTENing on the channel, this instance's own listener included (wake-listener.ts).

export const WAKE_CHANNELS = {
  /** Outbox events were appended: alert routing has work. */
  alertOutbox: "receipt_alert_outbox",
  /** Deliveries were inserted or made due: the delivery job has work. */
  deliveries: "receipt_deliveries",
} as const;

export type WakeChannel = (typeof WAKE_CHANNELS)[keyof typeof WAKE_CHANNELS];

// An empty payload: PostgreSQL folds identical notifications of one transaction into one.
const NOTIFY = prepared("receipt_notify_wake", "select pg_notify($1, '')");

/** Wakes the channel's job on every instance once the caller's transaction commits. */
export async function notifyWake(sql: Sql, channel: WakeChannel): Promise<void> {
  await sql.execute(NOTIFY, [channel]);
}

export async function notifyWakeInPrisma(tx: Prisma.TransactionClient, channel: WakeChannel): Promise<void> {
  await notifyWake(prismaSql(tx), channel);
}
