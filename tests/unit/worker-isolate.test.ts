import { describe, expect, it } from "vitest";
import { mergeMemberships } from "@/lib/server/routing/group-membership";
import { failureReason } from "@/lib/server/db/isolated-writes";
import { planIsolated } from "@/lib/server/worker/isolate";

describe("planIsolated", () => {
  const double = (items: readonly number[]) =>
    items.map((n) => {
      if (n < 0) throw new RangeError(`negative input`);
      return n * 2;
    });

  it("plans the whole batch in one call when nothing fails", () => {
    let calls = 0;
    const planned = planIsolated([1, 2, 3], (items) => {
      calls++;
      return double(items);
    });
    expect(planned).toEqual({ results: [2, 4, 6], failures: [] });
    expect(calls).toBe(1);
  });

  it("plans item by item after a failure, keeping every item that plans alone", () => {
    expect(planIsolated([1, -1, 3, -2], double)).toEqual({
      results: [2, 6],
      failures: [
        { item: -1, reason: "RangeError: negative input" },
        { item: -2, reason: "RangeError: negative input" },
      ],
    });
  });
});

describe("failureReason", () => {
  it("is the error's name and message, cut to 500 characters", () => {
    expect(failureReason(new TypeError("x is not a function"))).toBe("TypeError: x is not a function");
    expect(failureReason(new Error("e".repeat(1000)))).toHaveLength(500);
    expect(failureReason({ detail: "a row value" })).toBe("unknown error");
  });
});

describe("mergeMemberships", () => {
  const group = (groupKey: string, fingerprints: string[]) => ({
    groupKey,
    receiver: "ops",
    routePath: "$.route",
    labels: {},
    fingerprints,
    groupWaitMs: 0,
    groupIntervalMs: 0,
  });

  it("names each group once, with the fingerprints of every alert planned into it", () => {
    const merged = mergeMemberships([group("a", ["1"]), group("b", ["2"]), group("a", ["3"])]);
    expect(merged.map((g) => [g.groupKey, g.fingerprints])).toEqual([
      ["a", ["1", "3"]],
      ["b", ["2"]],
    ]);
  });
});
