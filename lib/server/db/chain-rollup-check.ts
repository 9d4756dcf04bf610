import {
  DAILY_KEY_COLUMNS,
  DAILY_KEY_POSITIONS,
  LABEL_ROLLUP_DIMENSIONS,
  labelSetOf,
  ROLLUP_KEY_COLUMNS,
  ROLLUP_KEY_OF_CHAIN,
  ROLLUP_KEY_POSITIONS,
  unseenLayersOf,
} from "./chain-rollup-sql";
import { PROBLEM_KEY_COLUMNS, QUIET_STATES_SQL } from "./problem-rollup-sql";
import type { Sql } from "./sql";

/** One rollup key whose kept count differs from a full count of `chains`, or whose times fall behind it. */
export type RollupDifference = {
  rollup:
    | "chain_rollups"
    | "chain_state_rollups"
    | "chain_rollups_daily"
    | "problem_rollups"
    | "problem_rollups_daily"
    | "chain_label_rollups"
    | "chain_label_set_rollups";
  key: Record<string, unknown>;
  counted: number;
  kept: number;
  problem: "count" | "times";
};

const toNumber = (value: unknown) => (value === null || value === undefined ? 0 : Number(value));

/**
 * Compares the rollups as readers see them (folded rows plus pending deltas) with a full
 * `group by` of `chains`: every count must be equal, and each key's first/last observed and last written times
 * must cover the chains' (they only move forward, so they may be wider, never narrower). One snapshot: run it in a
 * REPEATABLE READ transaction, or on a database nobody writes, for a consistent answer.
 */
export async function diffChainRollups(sql: Sql): Promise<RollupDifference[]> {
  const wide = await sql.query<Record<string, unknown>>(
    `with counted as (
        select ${ROLLUP_KEY_OF_CHAIN}, count(*)::int as n, min(c.observed_at) as first_at,
          max(c.observed_at) as last_at, max(c.updated_at) as written_at
        from chains c group by ${ROLLUP_KEY_POSITIONS}
      ), kept as (
        select ${ROLLUP_KEY_COLUMNS}, chains as n, first_observed_at as first_at, last_observed_at as last_at,
          last_written_at as written_at
        from chain_rollups_live where chains <> 0
      )
      select ${ROLLUP_KEY_COLUMNS}, counted.n as counted, kept.n as kept,
        case when counted.n is distinct from kept.n then 'count' else 'times' end as problem
      from counted full join kept using (${ROLLUP_KEY_COLUMNS})
      where counted.n is distinct from kept.n or kept.first_at > counted.first_at
        or kept.last_at < counted.last_at or kept.written_at < counted.written_at
      order by ${ROLLUP_KEY_POSITIONS}`,
  );
  const narrow = await sql.query<Record<string, unknown>>(
    `with counted as (
        select date_bin('1 hour', observed_at, 'epoch'::timestamptz) as bucket, state,
          coalesce(shadowed_state, '') as shadowed_state, count(*)::int as n
        from chains group by 1, 2, 3
      ), kept as (select bucket, state, shadowed_state, chains as n from chain_state_rollups_live where chains <> 0)
      select bucket, state, shadowed_state, counted.n as counted, kept.n as kept
      from counted full join kept using (bucket, state, shadowed_state)
      where counted.n is distinct from kept.n
      order by 1, 2, 3`,
  );
  const daily = await sql.query<Record<string, unknown>>(
    `with counted as (
        select date_bin('1 day', c.observed_at, 'epoch'::timestamptz) as bucket, c.state,
          coalesce(c.server_name, '') as server_name, coalesce(c.tool, '') as tool,
          coalesce(c.reasons[1], '') as reason, coalesce(c.evidence = 'weak', false) as weak,
          ${unseenLayersOf("c")} as unseen, count(*)::int as n,
          min(c.observed_at) as first_at, max(c.observed_at) as last_at, max(c.updated_at) as written_at
        from chains c group by ${DAILY_KEY_POSITIONS}
      ), kept as (
        select ${DAILY_KEY_COLUMNS}, sum(chains)::int as n, min(first_observed_at) as first_at,
          max(last_observed_at) as last_at, max(last_written_at) as written_at
        from chain_rollup_day_rows group by ${DAILY_KEY_POSITIONS} having sum(chains) <> 0
      )
      select ${DAILY_KEY_COLUMNS}, counted.n as counted, kept.n as kept,
        case when counted.n is distinct from kept.n then 'count' else 'times' end as problem
      from counted full join kept using (${DAILY_KEY_COLUMNS})
      where counted.n is distinct from kept.n or kept.first_at > counted.first_at
        or kept.last_at < counted.last_at or kept.written_at < counted.written_at
      order by ${DAILY_KEY_POSITIONS}`,
  );
  const problems = [];
  for (const [rollup, bin, view] of [
    ["problem_rollups", "1 hour", "problem_rollup_rows"],
    ["problem_rollups_daily", "1 day", "problem_rollup_day_rows"],
  ] as const) {
    const rows = await sql.query<Record<string, unknown>>(
      `with counted as (
          select date_bin('${bin}', c.observed_at, 'epoch'::timestamptz) as bucket,
            coalesce(c.server_name, '') as server_name, coalesce(c.tool, '') as tool, c.state,
            coalesce(c.reasons[1], '') as reason, count(*)::int as n, min(c.observed_at) as first_at,
            max(c.observed_at) as last_at, max(c.updated_at) as written_at
          from chains c where c.state not in ${QUIET_STATES_SQL} group by 1, 2, 3, 4, 5
        ), kept as (
          select ${PROBLEM_KEY_COLUMNS}, sum(chains)::int as n, min(first_observed_at) as first_at,
            max(last_observed_at) as last_at, max(last_written_at) as written_at
          from ${view} group by 1, 2, 3, 4, 5 having sum(chains) <> 0
        )
        select ${PROBLEM_KEY_COLUMNS}, counted.n as counted, kept.n as kept,
          case when counted.n is distinct from kept.n then 'count' else 'times' end as problem
        from counted full join kept using (${PROBLEM_KEY_COLUMNS})
        where counted.n is distinct from kept.n or kept.first_at > counted.first_at
          or kept.last_at < counted.last_at or kept.written_at < counted.written_at
        order by 1, 2, 3, 4, 5`,
    );
    problems.push(...rows.map((row) => ({ rollup, row })));
  }
  const labelled = await sql.query<Record<string, unknown>>(
    `with counted as (
        select l.key as label_key, l.value as label_value, c.state, coalesce(c.shadowed_state, '') as shadowed_state,
          coalesce(c.server_name, '') as server_name, coalesce(c.tool, '') as tool, c.client_name,
          date_bin('1 hour', c.observed_at, 'epoch'::timestamptz) as bucket, count(*)::int as n
        from chains c cross join lateral jsonb_each_text(c.labels) l group by 1, 2, 3, 4, 5, 6, 7, 8
      ), kept as (
        select label_key, label_value, ${LABEL_ROLLUP_DIMENSIONS}, sum(chains)::int as n
        from (
          select label_key, label_value, ${LABEL_ROLLUP_DIMENSIONS}, chains from chain_label_rollups
          union all
          select l.key, l.value, ${LABEL_ROLLUP_DIMENSIONS}, d.chains
          from chain_rollup_deltas d cross join lateral jsonb_each_text(d.labels) l
        ) rows group by 1, 2, 3, 4, 5, 6, 7, 8 having sum(chains) <> 0
      )
      select label_key, label_value, ${LABEL_ROLLUP_DIMENSIONS}, counted.n as counted, kept.n as kept
      from counted full join kept using (label_key, label_value, ${LABEL_ROLLUP_DIMENSIONS})
      where counted.n is distinct from kept.n
      order by 1, 2, 3, 4, 5, 6, 7, 8`,
  );
  const labelSets = await sql.query<Record<string, unknown>>(
    `with counted as (
        select ${labelSetOf("c.labels")} as label_set, c.state, coalesce(c.shadowed_state, '') as shadowed_state,
          coalesce(c.server_name, '') as server_name, coalesce(c.tool, '') as tool, c.client_name,
          date_bin('1 hour', c.observed_at, 'epoch'::timestamptz) as bucket, count(*)::int as n
        from chains c group by 1, 2, 3, 4, 5, 6, 7
      ), kept as (
        select label_set, ${LABEL_ROLLUP_DIMENSIONS}, sum(chains)::int as n
        from (
          select label_set, ${LABEL_ROLLUP_DIMENSIONS}, chains from chain_label_set_rollups
          union all
          select ${labelSetOf("d.labels")}, ${LABEL_ROLLUP_DIMENSIONS}, d.chains from chain_rollup_deltas d
        ) rows group by 1, 2, 3, 4, 5, 6, 7 having sum(chains) <> 0
      )
      select label_set::text, ${LABEL_ROLLUP_DIMENSIONS}, counted.n as counted, kept.n as kept
      from counted full join kept using (label_set, ${LABEL_ROLLUP_DIMENSIONS})
      where counted.n is distinct from kept.n
      order by 1, 2, 3, 4, 5, 6, 7`,
  );
  const split = (row: Record<string, unknown>) => {
    const { counted, kept, problem, ...key } = row;
    return { key, counted: toNumber(counted), kept: toNumber(kept), problem };
  };
  return [
    ...wide.map((row) => {
      const { problem, ...rest } = split(row);
      return {
        rollup: "chain_rollups" as const,
        ...rest,
        problem: problem === "times" ? "times" : "count",
      } as const;
    }),
    ...daily.map((row) => {
      const { problem, ...rest } = split(row);
      return {
        rollup: "chain_rollups_daily" as const,
        ...rest,
        problem: problem === "times" ? "times" : "count",
      } as const;
    }),
    ...problems.map(({ rollup, row }) => {
      const { problem, ...rest } = split(row);
      return { rollup, ...rest, problem: problem === "times" ? "times" : "count" } as const;
    }),
    ...labelled.map((row) => ({
      rollup: "chain_label_rollups" as const,
      ...split(row),
      problem: "count" as const,
    })),
    ...labelSets.map((row) => ({
      rollup: "chain_label_set_rollups" as const,
      ...split(row),
      problem: "count" as const,
    })),
    ...narrow.map((row) => ({
      rollup: "chain_state_rollups" as const,
      ...split(row),
      problem: "count" as const,
    })),
  ];
}

/** Deltas written but not folded yet. */
export async function countPendingRollupDeltas(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ n: bigint }>("select count(*) as n from chain_rollup_deltas");
  return Number(row?.n ?? 0);
}
