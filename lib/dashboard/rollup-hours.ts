import type { State } from "@/lib/contract";
import type { TimeWindow, Trend } from "./api-types";

// How a read splits a time range between the rollups (whole observed hours) and `chains` (the part of an hour at
// an edge), and how hourly counts become a chart's buckets. Pure: the repositories run the two counts.

export const HOUR_MS = 3_600_000;

export const hourFloor = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
export const hourCeil = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS;

/**
 * Chains observed since `sinceMs` (no upper bound): `chains` counts [sinceMs, wholeHoursFromMs), the rollups every
 * hour from wholeHoursFromMs on. Empty edge when `sinceMs` is a whole hour.
 */
export function splitSince(sinceMs: number): { edgeFromMs: number; wholeHoursFromMs: number } {
  return { edgeFromMs: sinceMs, wholeHoursFromMs: hourCeil(sinceMs) };
}

/**
 * Chains observed in [fromMs, toMs] with `fromMs` a whole hour: the rollups count the hours in
 * [fromMs, lastHourMs), `chains` the hour `toMs` falls in, [lastHourMs, toMs].
 */
export function splitWindow(fromMs: number, toMs: number): { lastHourMs: number } {
  if (fromMs % HOUR_MS !== 0) throw new Error("a window read from the rollups starts on a whole hour");
  return { lastHourMs: Math.max(hourFloor(toMs), fromMs) };
}

/**
 * Chains observed in [fromMs, toMs): the rollups count the whole hours [wholeFromMs, wholeToMs), `chains` the edges
 * (the part of an hour at either end; the whole range as one edge when it holds no whole hour). Empty edges are
 * left out.
 */
export function splitBetween(
  fromMs: number,
  toMs: number,
): { wholeFromMs: number; wholeToMs: number; edges: [number, number][] } {
  const wholeFromMs = hourCeil(fromMs);
  const wholeToMs = hourFloor(toMs);
  if (wholeFromMs >= wholeToMs) {
    return { wholeFromMs, wholeToMs: wholeFromMs, edges: fromMs < toMs ? [[fromMs, toMs]] : [] };
  }
  const edges: [number, number][] = [
    [fromMs, wholeFromMs],
    [wholeToMs, toMs],
  ];
  return { wholeFromMs, wholeToMs, edges: edges.filter(([from, to]) => from < to) };
}

export type StartStateCount = { startMs: number; state: string; chains: number };

/**
 * The chart's buckets of `window` from `sinceMs` to `nowMs`: every bucket present (empty ones too), each count the
 * sum of the rows (hours or shorter buckets) starting in it; rows outside the window and zero counts left out.
 */
export function bucketTrend(
  window: TimeWindow,
  bucketMs: number,
  sinceMs: number,
  nowMs: number,
  rows: StartStateCount[],
): Trend {
  const buckets = new Map<number, Partial<Record<State, number>>>();
  for (let start = sinceMs; start <= nowMs; start += bucketMs) buckets.set(start, {});
  for (const row of rows) {
    const counts = buckets.get(Math.floor(row.startMs / bucketMs) * bucketMs);
    if (counts) counts[row.state as State] = (counts[row.state as State] ?? 0) + row.chains;
  }
  for (const counts of buckets.values())
    for (const [state, n] of Object.entries(counts)) if (n === 0) delete counts[state as State];
  return {
    window,
    bucketMs,
    buckets: [...buckets].map(([start, counts]) => ({ start: new Date(start).toISOString(), counts })),
  };
}
