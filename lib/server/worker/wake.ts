// Wake-ups of background jobs by name, so work a commit made is taken up at once instead of at the next tick. Kept
// on globalThis: Next.js bundles instrumentation (which starts the jobs) and route handlers separately, and both must
// reach the same runners.
type Wakeable = { wake: () => void; soon: () => void };

/** The alert jobs' names (background.ts runs them under these names). */
export const ALERT_JOBS = { routing: "alert-routing", delivery: "delivery" } as const;

const registry = globalThis as unknown as { receiptWakeables?: Map<string, Wakeable> };

function wakeables(): Map<string, Wakeable> {
  registry.receiptWakeables ??= new Map();
  return registry.receiptWakeables;
}

/** Makes `name` wakeable (background.ts, for each job it runs). */
export function registerWakeable(name: string, runner: Wakeable): void {
  wakeables().set(name, runner);
}

/**
 * Runs the job now, or once more right after the run in progress. A no-op where the job does not run (workers
 * disabled): the safety tick and other instances' LISTEN connections cover it.
 */
export function wakeJob(name: string): void {
  wakeables().get(name)?.wake();
}

/** Wakes the job for work that can wait its gathering window (job-runner.ts): at once for a job without one. */
export function wakeJobSoon(name: string): void {
  wakeables().get(name)?.soon();
}

export function wakeAllJobs(): void {
  for (const runner of wakeables().values()) runner.wake();
}
