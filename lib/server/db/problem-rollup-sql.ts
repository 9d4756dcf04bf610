// The problem rollups (problem_rollups by hour, problem_rollups_daily by day): chains whose state needs a person,
// per server, tool, state and deciding reason. Folded, rebuilt and checked with the other rollups
// (chain-rollups.ts, chain-rollup-check.ts); ranked by problem-ranking.ts.

/** States that are no problem: their chains are not kept in the problem rollups. */
export const QUIET_STATES_SQL = "('healthy', 'working')";

export const PROBLEM_KEY_COLUMNS = "bucket, server_name, tool, state, reason";

const PROBLEM_COLUMNS = `${PROBLEM_KEY_COLUMNS}, chains, first_observed_at, last_observed_at, last_written_at`;

/**
 * Adds `source`'s rows (hour-bucketed rollup rows or deltas, any key columns beyond the problem's) into the problem
 * rollup `table`, binned by `bin` ('1 hour' or '1 day'): a statement to use as a CTE of the fold, or alone.
 */
export const addToProblemRollup = (table: string, bin: string, source: string) => `
  insert into ${table} (${PROBLEM_COLUMNS})
  select date_bin('${bin}', bucket, 'epoch'::timestamptz), server_name, tool, state, reason, sum(chains)::int,
    min(first_observed_at) filter (where chains > 0), max(last_observed_at) filter (where chains > 0),
    max(last_written_at)
  from ${source} where state not in ${QUIET_STATES_SQL}
  group by 1, 2, 3, 4, 5
  on conflict (${PROBLEM_KEY_COLUMNS}) do update set
    chains = ${table}.chains + excluded.chains,
    first_observed_at = least(${table}.first_observed_at, excluded.first_observed_at),
    last_observed_at = greatest(${table}.last_observed_at, excluded.last_observed_at),
    last_written_at = greatest(${table}.last_written_at, excluded.last_written_at)`;

export const PROBLEM_ROLLUP_TABLES = ["problem_rollups", "problem_rollups_daily"] as const;
