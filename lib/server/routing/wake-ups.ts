import { WAKE_CHANNELS, notifyWake } from "../db/wake-notify";
import { poolSql } from "../db/sql";
import { ALERT_JOBS, wakeJob } from "../worker/wake";

/**
 * After a committed change that made deliveries due outside a transaction of its own (a test notification, a dead
 * letter retried): this instance sends them now, and every other instance hears of it.
 */
export async function wakeDeliveriesEverywhere(): Promise<void> {
  wakeJob(ALERT_JOBS.delivery);
  // Best effort: a lost notification only waits for the safety tick.
  await notifyWake(poolSql(), WAKE_CHANNELS.deliveries).catch(() => {});
}
