import { alertJobs, armGroupTimerFor } from "../routing/jobs";
import { alertSettings } from "../routing/settings";
import { reclassifyDueChains } from "../chains/deadline-job";
import { runRetention } from "../retention/prune-job";
import { retentionSettings } from "../retention/settings";
import { checkUnknownEffects } from "../checks/check-job";
import { foldRollups } from "../rollups/fold-job";
import { startWakeListener } from "../db/wake-listener";
import {
  onDeliveriesInsertedHere,
  onGroupScheduledHere,
  onWakeHere,
  WAKE_CHANNELS,
  type WakeChannel,
} from "../db/wake-notify";
import { takeNewDeliveries } from "../routing/delivery-worker";
import { env, readEnv } from "../env";
import { metrics } from "../metrics/registry";
import { failureReason } from "../db/isolated-writes";
import { createJobRunner } from "./job-runner";
import { ALERT_JOBS, registerWakeable, wakeAllJobs, wakeJob, wakeJobSoon } from "./wake";

// Background work of the server process: no extra service to run. Each job runs at most once at a time here;
// the database (SKIP LOCKED, advisory locks) keeps several app instances from doing the same work twice. A job sets
// aside the items it cannot process (lib/server/worker/isolate.ts), so a run fails as a whole only when the database
// does, and the next tick tries again.
//
// A job runs when woken (wake.ts: a commit in this process, or a NOTIFY from any instance through the wake
// listener) and on its tick, the safety net for a lost notification (job-runner.ts: one run at a time, coalesced).
type Job = {
  name: string;
  everyMs: number;
  /** Resolves to true when it stopped with work left (a batch limit): it runs again at once. */
  run: () => Promise<unknown>;
  /** Wake-ups by commits gathered into one run this long after the first (job-runner.ts); none by default. */
  gatherMs?: number;
};

const jobs: Job[] = [
  {
    name: "deadline",
    everyMs: env().RECEIPT_DEADLINE_TICK_MS,
    run: () => reclassifyDueChains(),
  },
  // Folds the rollup deltas appended by chain writes (lib/server/db/chain-rollups.ts).
  {
    name: "rollups",
    everyMs: env().RECEIPT_ROLLUP_FOLD_MS,
    run: () => foldRollups(),
  },
  // Alert routing: outbox → notification groups → deliveries (lib/server/routing).
  ...alertJobs(),
  // Destination checks on chains whose effect is unknown (lib/server/checks).
  { name: "checks", everyMs: env().RECEIPT_CHECKS_TICK_MS, run: () => checkUnknownEffects() },
  // Retention: old chains, alerts and deliveries, and weekly record partitions (lib/server/retention).
  ...(retentionSettings().enabled
    ? [{ name: "retention", everyMs: retentionSettings().tickMs, run: () => runRetention() }]
    : []),
];

/** Which job each wake channel starts. */
const JOB_OF_CHANNEL: Record<WakeChannel, string> = {
  [WAKE_CHANNELS.alertOutbox]: ALERT_JOBS.routing,
  [WAKE_CHANNELS.deliveries]: ALERT_JOBS.delivery,
};

let started = false;

export function startBackgroundJobs() {
  if (started || env().RECEIPT_DISABLE_WORKERS === "1") return;
  started = true;
  for (const job of jobs) startJob(job);
  const settings = alertSettings();
  if (!settings.wakeUps) return;
  const wakeFor = (channel: WakeChannel) => wakeJob(JOB_OF_CHANNEL[channel]);
  // This instance's own commits wake a job soon (its gathering window, jobs.ts); another instance's NOTIFY at once.
  onWakeHere((channel) => wakeJobSoon(JOB_OF_CHANNEL[channel]));
  // Deliveries this instance's commits insert go to its engine by id, not through a search for due rows.
  onDeliveriesInsertedHere(takeNewDeliveries);
  // Commits here route their own alerts (route-at-commit.ts), and tell this instance's group timer what they scheduled.
  if (settings.routeAtCommit) onGroupScheduledHere(armGroupTimerFor);
  const { DATABASE_URL } = readEnv();
  if (DATABASE_URL) {
    startWakeListener({
      connectionString: DATABASE_URL,
      onWake: wakeFor,
      onConnected: wakeAllJobs,
      maxRetryMs: settings.wakeReconnectMaxMs,
    });
  }
}

function startJob(job: Job) {
  const runner = createJobRunner(
    job.run,
    {
      started: () => metrics().jobRuns.inc({ job: job.name }),
      failed: (error) => {
        metrics().jobFailures.inc({ job: job.name });
        console.error(`receipt: ${job.name} job failed:`, failureReason(error));
      },
    },
    job.gatherMs,
  );
  if (alertSettings().wakeUps) registerWakeable(job.name, runner);
  const timer = setInterval(runner.tick, job.everyMs);
  timer.unref();
}
