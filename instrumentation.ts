// Next.js calls register() once per server process: the place to start Receipt's background jobs and the memory of
// the ingestion keys it has authenticated, and the process metrics.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs" && process.env.NEXT_PHASE !== "phase-production-build") {
    const { exitWhenOrphaned } = await import("./lib/server/launcher");
    exitWhenOrphaned();
    const { startBackgroundJobs } = await import("./lib/server/worker/background");
    startBackgroundJobs();
    const { holdActiveKeys } = await import("./lib/server/keys/active-keys");
    holdActiveKeys();
    const { metrics } = await import("./lib/server/metrics/registry");
    metrics(); // the event loop's delay is measured from the start, not from the first scrape
  }
}
