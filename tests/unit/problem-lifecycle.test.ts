import { describe, expect, it } from "vitest";
import {
  cascadeQuestion,
  countsText,
  type CurrentStates,
  itemId,
  type LifecycleChanges,
  resolvedMessage,
  undoConflicts,
} from "@/lib/problems/lifecycle";

const AT = "2026-12-05T21:00:00.000Z";
const changes: LifecycleChanges = {
  asked: ["k1"],
  problems: [
    {
      key: "k1",
      tuple: { server: "s", tool: "t", state: "effect_unknown", reason: null },
      before: null,
      after: { resolvedAt: AT, resolvedBy: "ana" },
    },
  ],
  items: [
    {
      chainId: "c1",
      queue: "effect_unknown",
      before: null,
      after: {
        status: "resolved",
        acknowledgedAt: null,
        acknowledgedBy: null,
        resolvedAt: AT,
        resolvedBy: "ana",
      },
    },
  ],
  alerts: [
    {
      fingerprint: "f1",
      chainId: "c1",
      before: { status: "firing", endsAt: null, resolvedBy: null },
      after: { status: "resolved", endsAt: AT, resolvedBy: "operator:ana" },
    },
  ],
};
const asLeft = (): CurrentStates => ({
  problems: new Map([["k1", { resolvedAt: AT, resolvedBy: "ana" }]]),
  items: new Map([[itemId("c1", "effect_unknown"), changes.items[0]?.after ?? null]]),
  alerts: new Map([["f1", changes.alerts[0]?.after ?? null]]),
});

describe("what a resolve says", () => {
  it.each([
    [{ problems: 1, items: 12, alerts: 3 }, "1 problem, 12 queue items and 3 alerts"],
    [{ problems: 2, items: 0, alerts: 1 }, "2 problems and 1 alert"],
    [{ problems: 0, items: 1, alerts: 0 }, "1 queue item"],
    [{ problems: 0, items: 0, alerts: 0 }, "nothing"],
    [{ problems: 1, items: 12_345, alerts: 0 }, "1 problem and 12,345 queue items"],
  ])("%o → %s", (counts, text) => {
    expect(countsText(counts)).toBe(text);
  });

  it("the confirmation asks only when something hangs below; a no-op says so", () => {
    expect(cascadeQuestion({ items: 12, alerts: 3 })).toBe("Also resolve 12 queue items and 3 alerts?");
    expect(cascadeQuestion({ items: 0, alerts: 0 })).toBeNull();
    expect(resolvedMessage({ problems: 0, items: 0, alerts: 0 })).toBe(
      "Nothing to resolve: it was resolved already",
    );
  });
});

describe("undo conflicts", () => {
  it("none while everything is as the resolve left it", () => {
    expect(undoConflicts(changes, asLeft())).toEqual([]);
  });

  it("each change since, at its path: a reopened item, an alert firing again, a problem reopened or resolved again", () => {
    const current = asLeft();
    const resolvedItem = {
      status: "resolved",
      acknowledgedAt: null,
      acknowledgedBy: null,
      resolvedAt: AT,
      resolvedBy: "ana",
    };
    current.items.set(itemId("c1", "effect_unknown"), { ...resolvedItem, status: "open" });
    current.alerts.set("f1", { status: "firing", endsAt: null, resolvedBy: null });
    current.problems.delete("k1");
    expect(undoConflicts(changes, current).map((conflict) => conflict.path)).toEqual([
      "$.problems[0]",
      "$.items[0]",
      "$.alerts[0]",
    ]);
    current.problems.set("k1", { resolvedAt: "2026-12-05T21:05:00.000Z", resolvedBy: "bo" });
    expect(undoConflicts(changes, current)[0]?.message).toBe("the problem was resolved again by bo");
  });
});
