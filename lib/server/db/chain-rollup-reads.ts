import { splitBetween, splitSince, splitWindow, type StartStateCount } from "@/lib/dashboard/rollup-hours";
import { poolSql } from "./sql";

// Reads of the narrow rollup (chains per observed hour, state and shadowed state) through its `_live` view, which
// adds the deltas not folded yet. A window's partial hour is counted from `chains` (at most an hour of rows, by the
// observed_at index), in the same statement, so every answer is one snapshot and exact.

export type StatePairCount = { state: string; shadowedState: string | null; chains: number };

/** Chains per (state, shadowed state) observed since `since` (all of them without), future ones included. */
export async function countStatePairs(since?: Date): Promise<StatePairCount[]> {
  const wholeHoursFrom = since ? new Date(splitSince(since.getTime()).wholeHoursFromMs) : null;
  const rows = await poolSql().query<{ state: string; shadowed_state: string; n: bigint }>(
    `select state, shadowed_state, sum(n)::bigint as n from (
        select state, shadowed_state, chains as n from chain_state_rollups_live
        where $1::timestamptz is null or bucket >= $1
        union all
        select state, coalesce(shadowed_state, ''), count(*) from chains
        where observed_at >= $2 and observed_at < $1
        group by 1, 2
      ) counted
      group by 1, 2`,
    [wholeHoursFrom, since ?? null],
  );
  return rows.map((row) => ({
    state: row.state,
    shadowedState: row.shadowed_state === "" ? null : row.shadowed_state,
    chains: Number(row.n),
  }));
}

/**
 * Chains per (state, shadowed state) observed in [from, to): whole hours from the rollup, the parts of an hour at
 * either edge from `chains`. The overview's previous window.
 */
export async function countStatePairsBetween(from: Date, to: Date): Promise<StatePairCount[]> {
  const { wholeFromMs, wholeToMs, edges } = splitBetween(from.getTime(), to.getTime());
  // Two edge ranges always bound (an absent edge is the empty range [0, 0)), so the statement has one shape.
  const edgeBounds = [edges[0] ?? [0, 0], edges[1] ?? [0, 0]].flat().map((ms) => new Date(ms));
  const rows = await poolSql().query<{ state: string; shadowed_state: string; n: bigint }>(
    `select state, shadowed_state, sum(n)::bigint as n from (
        select state, shadowed_state, chains as n from chain_state_rollups_live
        where bucket >= $1 and bucket < $2
        union all
        select state, coalesce(shadowed_state, ''), count(*) from chains
        where (observed_at >= $3 and observed_at < $4) or (observed_at >= $5 and observed_at < $6)
        group by 1, 2
      ) counted
      group by 1, 2`,
    [new Date(wholeFromMs), new Date(wholeToMs), ...edgeBounds],
  );
  return rows.map((row) => ({
    state: row.state,
    shadowedState: row.shadowed_state === "" ? null : row.shadowed_state,
    chains: Number(row.n),
  }));
}

/**
 * Chains per observed hour and state from `from` (a whole hour) to `to` inclusive: whole hours from the rollup, the
 * hour `to` falls in from `chains`.
 */
export async function countStatesPerHour(from: Date, to: Date): Promise<StartStateCount[]> {
  const lastHour = new Date(splitWindow(from.getTime(), to.getTime()).lastHourMs);
  const rows = await poolSql().query<{ hour: bigint; state: string; n: bigint }>(
    `select (extract(epoch from hour) * 1000)::bigint as hour, state, sum(n)::bigint as n from (
        select bucket as hour, state, chains as n from chain_state_rollups_live
        where bucket >= $1 and bucket < $2
        union all
        select date_bin('1 hour', observed_at, 'epoch'::timestamptz), state, count(*) from chains
        where observed_at >= $2 and observed_at <= $3
        group by 1, 2
      ) counted
      group by 1, 2`,
    [from, lastHour, to],
  );
  return rows.map((row) => ({ startMs: Number(row.hour), state: row.state, chains: Number(row.n) }));
}
