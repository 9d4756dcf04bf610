// Wake-ups of background jobs by name, so work a commit made is taken up at once instead of at the next tick. Kept
// on globalThis: Next.js bundles instrumentation (which starts the jobs) and route handlers separately, and both must
// reach the same runners.
type Wakeable = () => void;

/** The alert jobs' names (background.ts runs them under these names). */
export const ALERT_JOBS = { routing: "alert-routing", delivery: "delivery" } as const;

const registry = globalThis as unknown as {
  receiptWakeables?: Map<string, Wakeable>;
  receiptWokenAt?: Map<string, number>;
};

/** When each job was first woken since its last run started (performance.now()), for its wake-up stage timing. */
function wokenAt(): Map<string, number> {
  registry.receiptWokenAt ??= new Map();
  return registry.receiptWokenAt;
}

/** Milliseconds from the job's first wake-up not yet taken to now, or null when it was not woken (its tick). */
export function takeWakeDelayMs(name: string): number | null {
  const at = wokenAt().get(name);
  if (at === undefined) return null;
  wokenAt().delete(name);
  return performance.now() - at;
}

function wakeables(): Map<string, Wakeable> {
  registry.receiptWakeables ??= new Map();
  return registry.receiptWakeables;
}

/** Makes `name` wakeable (background.ts, for each job it runs). */
export function registerWakeable(name: string, wake: Wakeable): void {
  wakeables().set(name, wake);
}

/**
 * Runs the job now, or once more right after the run in progress. A no-op where the job does not run (workers
 * disabled): the safety tick and other instances' LISTEN connections cover it.
 */
export function wakeJob(name: string): void {
  const wake = wakeables().get(name);
  if (!wake) return;
  if (!wokenAt().has(name)) wokenAt().set(name, performance.now());
  wake();
}

export function wakeAllJobs(): void {
  for (const name of wakeables().keys()) wakeJob(name);
}
