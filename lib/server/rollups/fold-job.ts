import { foldChainRollupDeltas } from "../db/chain-rollups";
import { inTransaction } from "../db/sql";

/** Deltas one run folds; a run that moved this many runs again at once. */
export const ROLLUP_FOLD_BATCH = 20_000;

/**
 * The `rollups` background job: folds the deltas appended by chain writes into the rollups, on every instance (the
 * fold lock lets one fold at a time; the others find nothing to do). Resolves to true when deltas are left.
 */
export async function foldRollups(limit = ROLLUP_FOLD_BATCH): Promise<boolean> {
  const moved = await inTransaction((sql) => foldChainRollupDeltas(sql, limit));
  return moved >= limit;
}
