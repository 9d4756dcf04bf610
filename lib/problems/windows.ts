import type { ProblemWindow } from "./types";

const HOUR = 3_600_000;

/** Each window's sparkline: enough buckets to show a shape, few enough to draw in a table cell. */
export const PROBLEM_WINDOW_SPEC: Record<
  ProblemWindow,
  { label: string; bucketMs: number; buckets: number }
> = {
  "24h": { label: "Last 24 hours", bucketMs: HOUR, buckets: 24 },
  "7d": { label: "Last 7 days", bucketMs: 6 * HOUR, buckets: 28 },
  "30d": { label: "Last 30 days", bucketMs: 24 * HOUR, buckets: 30 },
};

export const DEFAULT_PROBLEM_WINDOW: ProblemWindow = "7d";

/**
 * The window's start: the last bucket is the one holding `nowMs`, buckets are whole and aligned to the epoch, so
 * two reads in the same bucket agree on the instant (and on the chain list the problem links to).
 */
export function problemWindowStart(window: ProblemWindow, nowMs: number): Date {
  const { bucketMs, buckets } = PROBLEM_WINDOW_SPEC[window];
  const end = Math.floor(nowMs / bucketMs) * bucketMs + bucketMs;
  return new Date(end - buckets * bucketMs);
}

/** The bucket an instant falls in, clamped to the window (a chain at the window's edge counts in its end bucket). */
export function bucketIndex(atMs: number, sinceMs: number, window: ProblemWindow): number {
  const { bucketMs, buckets } = PROBLEM_WINDOW_SPEC[window];
  return Math.min(buckets - 1, Math.max(0, Math.floor((atMs - sinceMs) / bucketMs)));
}
