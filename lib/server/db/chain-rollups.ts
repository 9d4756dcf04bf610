import {
  appendRollupDeltasFrom,
  DAILY_DELTA_COLUMNS,
  DAILY_KEY_COLUMNS,
  DAILY_KEY_FROM_HOURS,
  DAILY_KEY_POSITIONS,
  DELTA_COLUMNS,
  LABEL_ROLLUP_DIMENSIONS,
  labelSetOf,
  ROLLUP_KEY_COLUMNS,
  ROLLUP_KEY_OF_CHAIN,
  ROLLUP_KEY_POSITIONS,
} from "./chain-rollup-sql";
import { lockChains } from "./chain-writes";
import { addToProblemRollup, PROBLEM_ROLLUP_TABLES } from "./problem-rollup-sql";
import type { Sql } from "./sql";

// Chain counts kept with the writes (docs/ARCHITECTURE.md, "Rollups"). Every statement that changes a chain's
// dimensions appends its grouped changes to chain_rollup_deltas in the same statement: −1 for the tuple a chain
// leaves, +1 for the one it enters. The `rollups` job folds the deltas into chain_rollups (every dimension) and
// chain_state_rollups (state and shadowed state only, for stats and the trend) and chain_rollups_daily (days, without
// shadowed state and client, for coverage), the problem rollups (problem-rollup-sql.ts), chain_label_rollups (each
// delta's label pairs, for label totals) and chain_label_set_rollups (each delta's label set, for several labels).
// Readers add the deltas not folded yet (the `_live` and `_rows` views, or the deltas table itself) in one snapshot,
// so a fold running meanwhile changes nothing they see.

/**
 * Deletes chains and takes them out of the rollups in one statement (retention). Runs in the caller's transaction:
 * the chains are locked first (lockChains), as every writer of chains does, so a write of the same chain cannot
 * count the removed row as its old value too. Returns the chains deleted.
 */
export async function deleteChainsKeepingRollups(sql: Sql, chainIds: string[]): Promise<number> {
  if (chainIds.length === 0) return 0;
  await lockChains(sql, chainIds);
  const rows = await sql.query<{ deleted: number }>(
    `with gone as (
        delete from chains c where c.chain_id = any($1::text[])
        returning ${ROLLUP_KEY_OF_CHAIN}, c.labels, -1 as chains, null::timestamptz as observed_at,
          null::timestamptz as written_at
      ), appended as (${appendRollupDeltasFrom("gone")} returning 1)
      select count(*)::int as deleted from gone`,
    [chainIds],
  );
  return rows[0]?.deleted ?? 0;
}

/** Every rollup table, with the width of its buckets. */
const ROLLUP_TABLES: [table: string, bucket: "1 hour" | "1 day"][] = [
  ["chain_rollups", "1 hour"],
  ["chain_state_rollups", "1 hour"],
  ["chain_label_rollups", "1 hour"],
  ["chain_label_set_rollups", "1 hour"],
  ["chain_rollups_daily", "1 day"],
  ...PROBLEM_ROLLUP_TABLES.map(
    (table) => [table, table.endsWith("_daily") ? "1 day" : "1 hour"] as [string, "1 day"],
  ),
];

/**
 * Deletes up to `limit` rollup rows of each table left holding no chain, whose bucket ended before `before`
 * (retention: pruned chains empty their hours, and the rows would stay forever). A fold adding to such a row
 * meanwhile waits for the delete and writes a new row, or keeps the row it updated first (`chains = 0` is checked
 * again under the row lock). Returns the rows deleted.
 */
export async function deleteEmptiedRollupRows(sql: Sql, before: Date, limit: number): Promise<number> {
  let deleted = 0;
  for (const [table, width] of ROLLUP_TABLES) {
    deleted += await sql.execute(
      `delete from ${table} r where r.ctid = any(array(
          select ctid from ${table} where chains = 0 and bucket <= $1::timestamptz - interval '${width}' limit $2))
        and r.chains = 0`,
      [before, limit],
    );
  }
  return deleted;
}

/**
 * Adds the label pairs of the deltas in `moved` to chain_label_rollups: a delta of a chain with three labels counts
 * for each of the three (key, value) pairs.
 */
const addToLabelRollup = (moved: string) => `insert into chain_label_rollups (label_key, label_value,
    ${LABEL_ROLLUP_DIMENSIONS}, chains)
  select l.key, l.value, ${LABEL_ROLLUP_DIMENSIONS}, sum(m.chains)::int
  from ${moved} m cross join lateral jsonb_each_text(m.labels) l
  where m.chains <> 0
  group by 1, 2, 3, 4, 5, 6, 7, 8 having sum(m.chains) <> 0
  on conflict (label_key, label_value, ${LABEL_ROLLUP_DIMENSIONS}) do update set
    chains = chain_label_rollups.chains + excluded.chains`;

/** Adds the deltas in `moved` to chain_label_set_rollups, by the hash of their labels (labelSetOf). */
const addToLabelSetRollup = (moved: string) => `insert into chain_label_set_rollups (label_set,
    ${LABEL_ROLLUP_DIMENSIONS}, chains)
  select ${labelSetOf("m.labels")}, ${LABEL_ROLLUP_DIMENSIONS}, sum(m.chains)::int
  from ${moved} m
  where m.chains <> 0
  group by 1, 2, 3, 4, 5, 6, 7 having sum(m.chains) <> 0
  on conflict (label_set, ${LABEL_ROLLUP_DIMENSIONS}) do update set
    chains = chain_label_set_rollups.chains + excluded.chains`;

/** Whether any delta waits to be folded: an index probe, so an idle fold tick costs no transaction and no fold. */
export async function hasRollupDeltas(sql: Sql): Promise<boolean> {
  const [row] = await sql.query<{ waiting: boolean }>(
    "select exists (select 1 from chain_rollup_deltas order by id limit 1) as waiting",
  );
  return row?.waiting ?? false;
}

/** Only one instance folds at a time: two folds upserting the same rollup rows in another order could deadlock. */
const FOLD_LOCK_KEY = "receipt:chain-rollups-fold";

/**
 * Moves up to `limit` deltas (oldest first) into every rollup in one statement: deleted and added together, so a
 * reader sees each change exactly once, before or after. Returns the deltas moved; 0 when another instance is
 * folding. Run it in a transaction (the fold lock is held until commit).
 */
export async function foldChainRollupDeltas(sql: Sql, limit: number): Promise<number> {
  const [lock] = await sql.query<{ locked: boolean }>(
    "select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked",
    [FOLD_LOCK_KEY],
  );
  if (!lock?.locked) return 0;
  const rows = await sql.query<{ moved: number }>(
    `with batch as (
        select id from chain_rollup_deltas order by id limit $1 for update skip locked
      ), moved as (
        delete from chain_rollup_deltas d using batch where d.id = batch.id
        returning d.bucket, d.state, d.shadowed_state, d.server_name, d.tool, d.client_name, d.reason, d.weak,
          d.unseen, d.chains, d.first_observed_at, d.last_observed_at, d.last_written_at, d.labels
      ), wide as (
        insert into chain_rollups (${DELTA_COLUMNS})
        select ${ROLLUP_KEY_COLUMNS}, sum(chains)::int, min(first_observed_at), max(last_observed_at),
          max(last_written_at)
        from moved group by ${ROLLUP_KEY_POSITIONS}
        on conflict (${ROLLUP_KEY_COLUMNS}) do update set
          chains = chain_rollups.chains + excluded.chains,
          first_observed_at = least(chain_rollups.first_observed_at, excluded.first_observed_at),
          last_observed_at = greatest(chain_rollups.last_observed_at, excluded.last_observed_at),
          last_written_at = greatest(chain_rollups.last_written_at, excluded.last_written_at)
        returning 1
      ), narrow as (
        insert into chain_state_rollups (bucket, state, shadowed_state, chains)
        select bucket, state, shadowed_state, sum(chains)::int
        from moved group by 1, 2, 3 having sum(chains) <> 0
        on conflict (bucket, state, shadowed_state) do update set
          chains = chain_state_rollups.chains + excluded.chains
        returning 1
      ), daily as (
        insert into chain_rollups_daily (${DAILY_DELTA_COLUMNS})
        select ${DAILY_KEY_FROM_HOURS},
          sum(chains)::int, min(first_observed_at), max(last_observed_at), max(last_written_at)
        from moved group by ${DAILY_KEY_POSITIONS}
        on conflict (${DAILY_KEY_COLUMNS}) do update set
          chains = chain_rollups_daily.chains + excluded.chains,
          first_observed_at = least(chain_rollups_daily.first_observed_at, excluded.first_observed_at),
          last_observed_at = greatest(chain_rollups_daily.last_observed_at, excluded.last_observed_at),
          last_written_at = greatest(chain_rollups_daily.last_written_at, excluded.last_written_at)
        returning 1
      ), labelled as (${addToLabelRollup("moved")} returning 1
      ), label_sets as (${addToLabelSetRollup("moved")} returning 1
      ), problems as (${addToProblemRollup("problem_rollups", "1 hour", "moved")} returning 1
      ), problem_days as (${addToProblemRollup("problem_rollups_daily", "1 day", "moved")} returning 1
      )
      select count(*)::int as moved from moved`,
    [limit],
  );
  return rows[0]?.moved ?? 0;
}

/**
 * Recounts the rollups from `chains` (the migration's backfill, the benchmark's bulk seed, repairs). Run it in a
 * transaction: it holds writers of chains back (SHARE lock) until it commits, so no change is counted twice or lost.
 */
export async function rebuildChainRollups(sql: Sql): Promise<void> {
  await sql.execute("lock table chains in share mode");
  await sql.execute(
    `lock table chain_rollup_deltas, chain_rollups, chain_state_rollups, chain_rollups_daily, chain_label_rollups,
      chain_label_set_rollups, ${PROBLEM_ROLLUP_TABLES.join(", ")} in exclusive mode`,
  );
  await sql.execute("delete from chain_rollup_deltas");
  await sql.execute("delete from chain_rollups");
  await sql.execute("delete from chain_state_rollups");
  await sql.execute("delete from chain_rollups_daily");
  for (const table of PROBLEM_ROLLUP_TABLES) await sql.execute(`delete from ${table}`);
  await sql.execute(
    `insert into chain_rollups (${DELTA_COLUMNS})
      select ${ROLLUP_KEY_OF_CHAIN}, count(*)::int, min(c.observed_at), max(c.observed_at), max(c.updated_at)
      from chains c group by ${ROLLUP_KEY_POSITIONS}`,
  );
  await sql.execute(
    `insert into chain_state_rollups (bucket, state, shadowed_state, chains)
      select bucket, state, shadowed_state, sum(chains)::int from chain_rollups group by 1, 2, 3`,
  );
  await sql.execute(
    `insert into chain_rollups_daily (${DAILY_DELTA_COLUMNS})
      select ${DAILY_KEY_FROM_HOURS},
        sum(chains)::int, min(first_observed_at), max(last_observed_at), max(last_written_at)
      from chain_rollups group by ${DAILY_KEY_POSITIONS}`,
  );
  await sql.execute("delete from chain_label_rollups");
  await sql.execute(
    `insert into chain_label_rollups (label_key, label_value, ${LABEL_ROLLUP_DIMENSIONS}, chains)
      select l.key, l.value, c.state, coalesce(c.shadowed_state, ''), coalesce(c.server_name, ''),
        coalesce(c.tool, ''), c.client_name, date_bin('1 hour', c.observed_at, 'epoch'::timestamptz), count(*)::int
      from chains c cross join lateral jsonb_each_text(c.labels) l group by 1, 2, 3, 4, 5, 6, 7, 8`,
  );
  await sql.execute("delete from chain_label_set_rollups");
  await sql.execute(
    `insert into chain_label_set_rollups (label_set, ${LABEL_ROLLUP_DIMENSIONS}, chains)
      select ${labelSetOf("c.labels")}, c.state, coalesce(c.shadowed_state, ''), coalesce(c.server_name, ''),
        coalesce(c.tool, ''), c.client_name, date_bin('1 hour', c.observed_at, 'epoch'::timestamptz), count(*)::int
      from chains c group by 1, 2, 3, 4, 5, 6, 7`,
  );
  await sql.execute(addToProblemRollup("problem_rollups", "1 hour", "chain_rollups"));
  await sql.execute(addToProblemRollup("problem_rollups_daily", "1 day", "problem_rollups"));
}
