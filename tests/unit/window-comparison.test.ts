import { describe, expect, it } from "vitest";
import { STATES, type State } from "@/lib/contract";
import { HOUR_MS, splitBetween } from "@/lib/dashboard/rollup-hours";
import { changeText, compareCounts, previousWindow } from "@/lib/dashboard/window-comparison";

const T = Date.parse("2026-12-01T00:00:00.000Z");

const counts = (some: Partial<Record<State, number>>) => {
  const states = Object.fromEntries(STATES.map((state) => [state, some[state] ?? 0])) as Record<
    State,
    number
  >;
  return { total: Object.values(states).reduce((a, b) => a + b, 0), states };
};

describe("the previous window", () => {
  it("is as long as the current one and ends where it starts", () => {
    expect(previousWindow(T, T + 24 * HOUR_MS + 1234)).toEqual({
      fromMs: T - 24 * HOUR_MS - 1234,
      toMs: T,
    });
  });

  it("is none for an empty or future window", () => {
    expect(previousWindow(T, T)).toBeNull();
    expect(previousWindow(T + 1, T)).toBeNull();
    expect(previousWindow(Number.NaN, T)).toBeNull();
  });
});

describe("splitting a bounded range between rollup hours and chains", () => {
  it("counts whole hours from the rollups and both partial edges from chains", () => {
    expect(splitBetween(T - 1234, T + 3 * HOUR_MS + 5)).toEqual({
      wholeFromMs: T,
      wholeToMs: T + 3 * HOUR_MS,
      edges: [
        [T - 1234, T],
        [T + 3 * HOUR_MS, T + 3 * HOUR_MS + 5],
      ],
    });
  });

  it("leaves out empty edges when a bound is a whole hour", () => {
    expect(splitBetween(T, T + 2 * HOUR_MS)).toEqual({
      wholeFromMs: T,
      wholeToMs: T + 2 * HOUR_MS,
      edges: [],
    });
    expect(splitBetween(T - 5, T + HOUR_MS).edges).toEqual([[T - 5, T]]);
  });

  it("reads chains alone for a range inside one hour or across one hour boundary without a whole hour", () => {
    const inside = splitBetween(T + 10, T + 20);
    expect(inside.edges).toEqual([[T + 10, T + 20]]);
    expect(inside.wholeToMs - inside.wholeFromMs).toBe(0);
    const across = splitBetween(T - 10, T + 10);
    expect(across.edges).toEqual([[T - 10, T + 10]]);
    expect(across.wholeToMs - across.wholeFromMs).toBe(0);
    expect(splitBetween(T + 20, T + 10).edges).toEqual([]);
  });
});

describe("comparing counts with the previous window", () => {
  it("gives each state and the total its previous count and change", () => {
    const change = compareCounts(
      counts({ false_success: 12, healthy: 30, working: 2 }),
      counts({ false_success: 4, healthy: 40, working: 5, tool_failed: 3 }),
    );
    expect(change.total).toEqual({ previous: 52, delta: -8, meaning: "neutral" });
    expect(change.states.false_success).toEqual({ previous: 4, delta: 8, meaning: "worse" });
    expect(change.states.tool_failed).toEqual({ previous: 3, delta: -3, meaning: "better" });
    expect(change.states.healthy).toEqual({ previous: 40, delta: -10, meaning: "worse" });
    expect(change.states.working).toEqual({ previous: 5, delta: -3, meaning: "neutral" });
    expect(change.states.needs_auth).toEqual({ previous: 0, delta: 0, meaning: "neutral" });
    expect(Object.keys(change.states).sort()).toEqual([...STATES].sort());
  });

  it("more healthy chains is better, more alarming ones worse", () => {
    const change = compareCounts(counts({ healthy: 5, effect_unknown: 1 }), counts({}));
    expect(change.states.healthy.meaning).toBe("better");
    expect(change.states.effect_unknown.meaning).toBe("worse");
  });
});

describe("the change's words", () => {
  it("signs the change, with a true minus sign, and names the window", () => {
    expect(changeText(12, "24 h")).toBe("+12 vs previous 24 h");
    expect(changeText(-3, "1 h")).toBe("\u22123 vs previous 1 h");
    expect(changeText(1234, "7 d")).toBe("+1,234 vs previous 7 d");
    expect(changeText(0, "24 h")).toBe("same as previous 24 h");
  });
});
