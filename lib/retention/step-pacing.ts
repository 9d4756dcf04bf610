// How fast retention works off a backlog (docs/ARCHITECTURE.md, "Retention"): the pause after each step, and the
// batch of the next step. Pure decisions; lib/server/retention/prune-job.ts times the steps and applies them.

/**
 * While a backlog lasts, each step is followed by a pause of at least this many times the step's own length: pruning
 * works a fifth of the time at most. A step takes longer when PostgreSQL is busy (CPU, disk and WAL flushes it shares
 * with ingestion), so the pause grows with it and pruning yields to a busy ingestion by itself, where a fixed pause
 * would keep deleting at the same pace and take a larger share of a loaded machine.
 */
export const PAUSE_PER_STEP = 4;

/**
 * The pause after a step that took `stepMs` and left work: the setting's, or longer when steps are slow. A setting of
 * 0 prunes flat out (a one-off purge, tests).
 */
export function pauseAfterStep(stepMs: number, pauseMs: number): number {
  return pauseMs === 0 ? 0 : Math.max(pauseMs, Math.round(stepMs * PAUSE_PER_STEP));
}

/**
 * The length a step aims at. With the default 1 s pause, a step this long is where the pause stops being the
 * setting and becomes 4× the step: shorter steps leave the pause mostly idle (a backlog goes slower than pruning's
 * fifth of the time allows); longer ones prune no faster, since the pause grows with them, but hold their locks and
 * write their WAL in larger lumps.
 */
export const STEP_TARGET_MS = 250;

/** The batch may grow to this many times `RECEIPT_RETENTION_BATCH` and shrink to this many times less. */
export const BATCH_RANGE = 20;

export type BatchBounds = { start: number; min: number; max: number };

/** `RECEIPT_RETENTION_BATCH` is the first step's batch; the batch moves within BATCH_RANGE times either way. */
export function batchBounds(setting: number): BatchBounds {
  return {
    start: setting,
    min: Math.max(1, Math.floor(setting / BATCH_RANGE)),
    max: setting * BATCH_RANGE,
  };
}

/**
 * The next step's batch after one of `batch` rows a kind that took `stepMs`: doubled while steps are quick and filled
 * their batch (a step that found less work says nothing about a larger one), halved when a step took more than twice
 * its target (a busy database: shorter transactions, while the pause keeps pruning to a fifth of the time), else kept.
 * Between the two, a batch settles where a step takes one to two targets.
 */
export function nextBatch(batch: number, stepMs: number, filled: boolean, bounds: BatchBounds): number {
  if (stepMs > 2 * STEP_TARGET_MS) return Math.max(bounds.min, Math.floor(batch / 2));
  if (filled && stepMs < STEP_TARGET_MS) return Math.min(bounds.max, batch * 2);
  return Math.min(bounds.max, Math.max(bounds.min, batch));
}
