import { sendDueDeliveries } from "./delivery-worker";
import { flushDueGroups } from "./group-flush";
import { routeOutboxEvents } from "./outbox-processor";
import { alertSettings } from "./settings";

/** Outbox → groups → deliveries. Routing first, so a group flushed in this tick already has this tick's alerts. */
async function routeAndFlush(): Promise<void> {
  // Drain what accumulated (bounded: another instance holding the outbox lock makes this return 0).
  for (let round = 0; round < 50 && (await routeOutboxEvents()) > 0; round++);
  await flushDueGroups();
}

/** Background jobs of alert routing, for lib/server/worker/background.ts. */
export function alertJobs() {
  const settings = alertSettings();
  return [
    { name: "alert-routing", everyMs: settings.alertTickMs, run: routeAndFlush },
    // Separate from routing: a slow receiver must not delay grouping decisions.
    { name: "delivery", everyMs: settings.deliveryTickMs, run: () => sendDueDeliveries() },
  ];
}
