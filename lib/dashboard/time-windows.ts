import { TIME_WINDOWS, type TimeWindow } from "./api-types";

const HOUR = 3_600_000;

/** The overview's windows and the chart bucket each one uses (12 to 28 bars, readable on a phone). */
/** `short`: the length alone, for "vs previous 24 h". */
export const WINDOW_SPEC: Record<TimeWindow, { label: string; short: string; ms: number; bucketMs: number }> =
  {
    "1h": { label: "Last hour", short: "1 h", ms: HOUR, bucketMs: 5 * 60_000 },
    "24h": { label: "Last 24 hours", short: "24 h", ms: 24 * HOUR, bucketMs: HOUR },
    "7d": { label: "Last 7 days", short: "7 d", ms: 7 * 24 * HOUR, bucketMs: 6 * HOUR },
  };

export const DEFAULT_WINDOW: TimeWindow = "24h";

export function parseWindow(value: string | null | undefined): TimeWindow {
  return (TIME_WINDOWS as readonly string[]).includes(value ?? "") ? (value as TimeWindow) : DEFAULT_WINDOW;
}

/**
 * The start of a window, rounded down to its bucket so every query of one view (counts, chart, links) agrees on
 * the same instant and the chart's first bar is a whole bucket.
 */
export function windowStart(window: TimeWindow, nowMs: number): Date {
  const spec = WINDOW_SPEC[window];
  const start = nowMs - spec.ms;
  return new Date(Math.floor(start / spec.bucketMs) * spec.bucketMs);
}
