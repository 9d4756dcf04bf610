import { earliestGroupAction } from "../db/routing-groups";
import { ALERT_JOBS, wakeJob } from "../worker/wake";
import { sendDueDeliveries } from "./delivery-worker";
import { flushDueGroups } from "./group-flush";
import { ROUTE_BATCH, routeOutboxEvents } from "./outbox-processor";
import { currentRouting } from "./routing-config";
import { alertSettings } from "./settings";

const { routing: ROUTING_JOB, delivery: DELIVERY_JOB } = ALERT_JOBS;
/** A group already due after a flush is locked by another instance's flush, or beyond this run's batches. */
const OVERDUE_RETRY_MS = 100;

/**
 * Outbox → groups → deliveries. Routing first, so a group flushed in this run already has this run's alerts. The
 * routing config is read once a run, when first needed: a version saved meanwhile wakes this job again.
 */
async function routeAndFlush(): Promise<void> {
  try {
    const routing = readOnce(currentRouting);
    // Drain what accumulated, batch after batch (bounded: another instance holding the outbox lock makes this return
    // 0). A batch short of the limit emptied the outbox; an event committed after it was taken wakes this job again.
    for (let round = 0; round < 50; round++)
      if ((await routeOutboxEvents(new Date(), ROUTE_BATCH, routing)) < ROUTE_BATCH) break;
    await flushDueGroups(new Date(), undefined, routing);
  } finally {
    await armGroupTimer();
  }
}

/** `read` called on the first call only, its promise shared by the later ones. */
function readOnce<T>(read: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= read();
    return result;
  };
}

// One timer per instance for the earliest scheduled group (groupWait, the next flush tick, a delayed alert's ready
// time), so a group is flushed when it is due rather than at the next safety tick. Re-armed after every run.
let groupTimer: { at: number; timer: NodeJS.Timeout } | undefined;

async function armGroupTimer(): Promise<void> {
  if (!alertSettings().wakeUps) return;
  if (groupTimer) clearTimeout(groupTimer.timer);
  groupTimer = undefined;
  const next = await earliestGroupAction().catch(() => null); // the safety tick covers a failed read
  if (next) armGroupTimerFor(next);
}

/**
 * The timer at `next` unless it is armed for sooner: a routing run re-arms it from the database; a commit that routed
 * its own alerts (route-at-commit.ts) moves it earlier for the groups it scheduled.
 */
export function armGroupTimerFor(next: Date): void {
  const untilDue = next.getTime() - Date.now();
  const delay = untilDue > 0 ? untilDue : OVERDUE_RETRY_MS;
  const at = Date.now() + delay;
  if (groupTimer && groupTimer.at <= at) return;
  if (groupTimer) clearTimeout(groupTimer.timer);
  const timer = setTimeout(() => {
    groupTimer = undefined;
    wakeJob(ROUTING_JOB);
  }, delay);
  timer.unref();
  groupTimer = { at, timer };
}

/** Background jobs of alert routing, for lib/server/worker/background.ts. */
export function alertJobs() {
  const settings = alertSettings();
  return [
    // This instance's commits routed what pages at once themselves: the outbox they leave can gather (settings.ts).
    {
      name: ROUTING_JOB,
      everyMs: settings.alertTickMs,
      run: routeAndFlush,
      gatherMs: settings.outboxGatherMs,
    },
    // Separate from routing: a slow receiver must not delay grouping decisions. The engine starts its sends and
    // returns; each finished send claims again by itself.
    { name: DELIVERY_JOB, everyMs: settings.deliveryTickMs, run: () => sendDueDeliveries() },
  ];
}
