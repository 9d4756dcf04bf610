import { alertJobs } from "../alerts/jobs";
import { reclassifyDueChains } from "../chains/deadline-job";
import { metrics } from "../metrics/registry";
import { failureReason } from "./isolate";

// Background work of the server process: no extra service to run. Each job runs at most once at a time here;
// the database (SKIP LOCKED, advisory locks) keeps several app instances from doing the same work twice. A job sets
// aside the items it cannot process (lib/server/worker/isolate.ts), so a run fails as a whole only when the database
// does, and the next tick tries again.
type Job = { name: string; everyMs: number; run: () => Promise<unknown> };

const jobs: Job[] = [
  {
    name: "deadline",
    everyMs: Number(process.env.RECEIPT_DEADLINE_TICK_MS ?? 1000),
    run: () => reclassifyDueChains(),
  },
  // Alert routing: outbox → notification groups → deliveries (lib/server/alerts).
  ...alertJobs(),
];

let started = false;

export function startBackgroundJobs() {
  if (started || process.env.RECEIPT_DISABLE_WORKERS === "1") return;
  started = true;
  for (const job of jobs) {
    let running = false;
    const timer = setInterval(async () => {
      if (running) return;
      running = true;
      metrics().jobRuns.inc({ job: job.name });
      try {
        await job.run();
      } catch (error) {
        metrics().jobFailures.inc({ job: job.name });
        console.error(`receipt: ${job.name} job failed:`, failureReason(error));
      } finally {
        running = false;
      }
    }, job.everyMs);
    timer.unref();
  }
}
