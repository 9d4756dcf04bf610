import type { TimeWindow, Trend } from "@/lib/dashboard/api-types";
import { bucketTrend, HOUR_MS } from "@/lib/dashboard/rollup-hours";
import { WINDOW_SPEC, windowStart } from "@/lib/dashboard/time-windows";
import { countStatesPerHour } from "./chain-rollup-reads";
import { getPrisma } from "./client";

/**
 * Chains per current state, bucketed by when they were observed, for the overview chart. Every bucket of the
 * window is present (empty ones too) so the chart's time axis is even. Windows bucketed by whole hours read the
 * rollups (countStatesPerHour); the last hour's five-minute buckets are counted from `chains` (one hour of rows).
 */
export async function stateTrend(window: TimeWindow, now = new Date()): Promise<Trend> {
  const { bucketMs } = WINDOW_SPEC[window];
  const since = windowStart(window, now.getTime());
  const rows =
    bucketMs % HOUR_MS === 0
      ? await countStatesPerHour(since, now)
      : await countStatesPerBucket(since, now, bucketMs);
  return bucketTrend(window, bucketMs, since.getTime(), now.getTime(), rows);
}

/** Buckets shorter than an hour, from `chains`. date_bin per row; epoch arithmetic per row was slower. */
async function countStatesPerBucket(since: Date, now: Date, bucketMs: number) {
  const rows = await getPrisma().$queryRaw<{ bucket: bigint; state: string; n: number }[]>`
    select (extract(epoch from b.start) * 1000)::bigint as bucket, b.state, b.n
    from (
      select date_bin(make_interval(secs => ${bucketMs / 1000}), observed_at, 'epoch'::timestamptz) as start,
        state, count(*)::int as n
      from chains
      where observed_at >= ${since} and observed_at <= ${now}
      group by 1, 2
    ) b`;
  return rows.map((row) => ({ startMs: Number(row.bucket), state: row.state, chains: row.n }));
}
