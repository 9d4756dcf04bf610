import { foldChainRollupDeltas, hasRollupDeltas } from "../db/chain-rollups";
import { inTransaction, poolSql } from "../db/sql";

/** Deltas one run folds; a run that moved this many runs again at once. */
export const ROLLUP_FOLD_BATCH = 20_000;

/**
 * The `rollups` background job: folds the deltas appended by chain writes into the rollups, on every instance (the
 * fold lock lets one fold at a time; the others find nothing to do). Resolves to true when deltas are left.
 */
export async function foldRollups(limit = ROLLUP_FOLD_BATCH): Promise<boolean> {
  // The job ticks every second: with nothing written since, one probe, not the fold statement in a transaction.
  if (!(await hasRollupDeltas(poolSql()))) return false;
  const moved = await inTransaction((sql) => foldChainRollupDeltas(sql, limit));
  return moved >= limit;
}
