import { alertJobs } from "../alerts/jobs";
import { reclassifyDueChains } from "../db/deadlines";

// Background work of the server process: no extra service to run. Each job runs at most once at a time here;
// the database (SKIP LOCKED, advisory locks) keeps several app instances from doing the same work twice.
type Job = { name: string; everyMs: number; run: () => Promise<unknown> };

const jobs: Job[] = [
  {
    name: "deadline re-classification",
    everyMs: Number(process.env.RECEIPT_DEADLINE_TICK_MS ?? 1000),
    run: () => reclassifyDueChains(),
  },
  // Alert routing: outbox → notification groups → deliveries (lib/server/alerts).
  ...alertJobs(),
];

export function registerJob(job: Job) {
  jobs.push(job);
}

let started = false;

export function startBackgroundJobs() {
  if (started || process.env.RECEIPT_DISABLE_WORKERS === "1") return;
  started = true;
  for (const job of jobs) {
    let running = false;
    const timer = setInterval(async () => {
      if (running) return;
      running = true;
      try {
        await job.run();
      } catch (error) {
        console.error(`receipt: ${job.name} failed:`, error instanceof Error ? error.message : error);
      } finally {
        running = false;
      }
    }, job.everyMs);
    timer.unref();
  }
}
