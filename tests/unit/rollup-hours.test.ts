import { describe, expect, it } from "vitest";
import { bucketTrend, HOUR_MS, splitSince, splitWindow } from "@/lib/dashboard/rollup-hours";

const T = Date.parse("2026-12-01T00:00:00.000Z");

describe("splitting a range between rollup hours and chains", () => {
  it("stats since a time inside an hour count that hour's rest from chains, whole hours after it from rollups", () => {
    expect(splitSince(T + 1234)).toEqual({ edgeFromMs: T + 1234, wholeHoursFromMs: T + HOUR_MS });
  });

  it("stats since a whole hour read only the rollups (the edge is empty)", () => {
    const { edgeFromMs, wholeHoursFromMs } = splitSince(T + 5 * HOUR_MS);
    expect(wholeHoursFromMs).toBe(T + 5 * HOUR_MS);
    expect(wholeHoursFromMs - edgeFromMs).toBe(0);
  });

  it("a window counts its last, partial hour from chains", () => {
    expect(splitWindow(T, T + 24 * HOUR_MS + 61_000)).toEqual({ lastHourMs: T + 24 * HOUR_MS });
    expect(splitWindow(T, T + 10)).toEqual({ lastHourMs: T });
  });

  it("a window must start on a whole hour", () => {
    expect(() => splitWindow(T + 1, T + HOUR_MS)).toThrow(/whole hour/);
  });
});

describe("bucketing hourly counts for the chart", () => {
  it("sums hours into six-hour buckets, keeps every bucket, drops zero counts and rows outside the window", () => {
    const since = T;
    const now = T + 13 * HOUR_MS + 5;
    const trend = bucketTrend("7d", 6 * HOUR_MS, since, now, [
      { startMs: T, state: "healthy", chains: 2 },
      { startMs: T + 5 * HOUR_MS, state: "healthy", chains: 3 },
      { startMs: T + 5 * HOUR_MS, state: "tool_failed", chains: 0 },
      { startMs: T + 7 * HOUR_MS, state: "tool_failed", chains: 4 },
      { startMs: T + 12 * HOUR_MS, state: "working", chains: 1 },
      { startMs: T - HOUR_MS, state: "healthy", chains: 9 },
      { startMs: T + 18 * HOUR_MS, state: "healthy", chains: 9 },
    ]);
    expect(trend).toEqual({
      window: "7d",
      bucketMs: 6 * HOUR_MS,
      buckets: [
        { start: new Date(T).toISOString(), counts: { healthy: 5 } },
        { start: new Date(T + 6 * HOUR_MS).toISOString(), counts: { tool_failed: 4 } },
        { start: new Date(T + 12 * HOUR_MS).toISOString(), counts: { working: 1 } },
      ],
    });
  });

  it("a state whose rows cancel out (a chain moved away) is left out, as a count of chains would", () => {
    const trend = bucketTrend("24h", HOUR_MS, T, T + 10, [
      { startMs: T, state: "healthy", chains: 1 },
      { startMs: T, state: "healthy", chains: -1 },
    ]);
    expect(trend.buckets).toEqual([{ start: new Date(T).toISOString(), counts: {} }]);
  });
});
