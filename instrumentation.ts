// Next.js calls register() once per server process: the place to start Receipt's background jobs and the memory of
// the ingestion keys it has authenticated.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs" && process.env.NEXT_PHASE !== "phase-production-build") {
    const { exitWhenOrphaned } = await import("./lib/server/launcher");
    exitWhenOrphaned();
    const { startBackgroundJobs } = await import("./lib/server/worker/background");
    startBackgroundJobs();
    const { holdActiveKeys } = await import("./lib/server/keys/active-keys");
    holdActiveKeys();
  }
}
