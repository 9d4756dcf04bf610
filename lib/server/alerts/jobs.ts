import { pruneProcessedOutbox } from "../db/alerting-outbox";
import { sendDueDeliveries } from "./delivery-worker";
import { flushDueGroups } from "./group-flush";
import { routeOutboxEvents } from "./outbox-processor";
import { alertSettings } from "./settings";

const WEEK_MS = 7 * 86_400_000;
let lastPrune = 0;

/** Outbox → groups → deliveries. Routing first, so a group flushed in this tick already has this tick's alerts. */
async function routeAndFlush(): Promise<void> {
  // Drain what accumulated (bounded: another instance holding the outbox lock makes this return 0).
  for (let round = 0; round < 50 && (await routeOutboxEvents()) > 0; round++);
  await flushDueGroups();
  if (Date.now() - lastPrune > 3_600_000) {
    lastPrune = Date.now();
    await pruneProcessedOutbox(new Date(Date.now() - WEEK_MS));
  }
}

/** Background jobs of alert routing, for lib/server/worker/background.ts. */
export function alertJobs() {
  const settings = alertSettings();
  return [
    { name: "alert routing", everyMs: settings.alertTickMs, run: routeAndFlush },
    // Separate from routing: a slow receiver must not delay grouping decisions.
    { name: "alert delivery", everyMs: settings.deliveryTickMs, run: () => sendDueDeliveries() },
  ];
}
