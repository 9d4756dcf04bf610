import { STATES, type State } from "@/lib/contract";
import { STATE_META } from "./state-meta";

// The overview's "against the previous window": the window just before the current one, of the same length, and
// how each headline count moved. Pure: the repository counts both windows, the stats route puts them side by side.

/** A half-open time range [fromMs, toMs). */
export type TimeRange = { fromMs: number; toMs: number };

/**
 * The window before [sinceMs, nowMs), as long as it: [sinceMs - (nowMs - sinceMs), sinceMs). None when the current
 * window is empty or in the future (nothing to measure it against).
 */
export function previousWindow(sinceMs: number, nowMs: number): TimeRange | null {
  const lengthMs = nowMs - sinceMs;
  if (!(lengthMs > 0)) return null;
  return { fromMs: sinceMs - lengthMs, toMs: sinceMs };
}

/**
 * `worse` and `better` say what the move means for the person on call: more chains in an alarming state is worse,
 * more healthy ones better; a quiet state (working, not observed) and the total only move.
 */
export type CountChange = {
  previous: number;
  delta: number;
  meaning: "worse" | "better" | "neutral";
};

export type CountsChange = { total: CountChange; states: Record<State, CountChange> };

type Counts = { total: number; states: Record<State, number> };

export function compareCounts(current: Counts, previous: Counts): CountsChange {
  const states = Object.fromEntries(
    STATES.map((state) => [state, changeOf(current.states[state] ?? 0, previous.states[state] ?? 0, state)]),
  ) as Record<State, CountChange>;
  return { total: changeOf(current.total, previous.total, null), states };
}

function changeOf(current: number, previous: number, state: State | null): CountChange {
  const delta = current - previous;
  const tone = state ? STATE_META[state].tone : "quiet";
  const meaning =
    delta === 0 || tone === "quiet" ? "neutral" : delta > 0 === (tone === "bad") ? "worse" : "better";
  return { previous, delta, meaning };
}

/**
 * The change as a headline's sub-line: "+12 vs previous 24 h", "−3 vs previous 24 h" (a true minus sign), "same as
 * previous 24 h". `windowLabel` is the window's short length ("1 h", "24 h", "7 d").
 */
export function changeText(delta: number, windowLabel: string): string {
  if (delta === 0) return `same as previous ${windowLabel}`;
  const size = Math.abs(delta).toLocaleString("en-US");
  return `${delta > 0 ? "+" : "\u2212"}${size} vs previous ${windowLabel}`;
}
