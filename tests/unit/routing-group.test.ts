// Grouping keys and notification timing (groupWait / groupInterval / repeatInterval), plus the
// per-route bounded delay.
import { describe, expect, it } from "vitest";
import { alertsForChain } from "@/lib/routing/alerts";
import { compileRouting } from "@/lib/routing/compile";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import {
  alertReadyAt,
  flushTickAtOrAfter,
  flushTickAtOrBefore,
  type GroupAction,
  type GroupState,
  groupKey,
  nextGroupAction,
  resolvedSinceLastSend,
} from "@/lib/routing/group";
import { matchRoutes } from "@/lib/routing/match";

describe("groupKey", () => {
  const on = (groupBy: string[]) => ({ routeId: "r1", receiver: "ops", groupBy });
  it("is the route id, its receiver and the sorted groupBy values", () => {
    expect(groupKey(on(["state", "server"]), { server: "fs", state: "tool_failed", tool: "x" })).toBe(
      'r1/ops:{server="fs",state="tool_failed"}',
    );
  });

  it("changes with the receiver (a route that really changed is a new group)", () => {
    const labels = { server: "fs" };
    expect(groupKey(on(["server"]), labels)).not.toBe(
      groupKey({ ...on(["server"]), receiver: "incident" }, labels),
    );
  });

  it("does not depend on groupBy order and reads a missing label as empty", () => {
    const labels = { server: "fs" };
    expect(groupKey(on(["server", "tool"]), labels)).toBe(groupKey(on(["tool", "server"]), labels));
    expect(groupKey(on(["tool"]), labels)).toBe('r1/ops:{tool=""}');
  });

  it("quotes values so crafted label values cannot collide", () => {
    const a = groupKey(on(["server", "tool"]), { server: 'a",tool="b', tool: "" });
    const b = groupKey(on(["server", "tool"]), { server: "a", tool: "b" });
    expect(a).not.toBe(b);
  });

  it('groupBy ["..."] groups by every label (one group per alert)', () => {
    expect(groupKey(on(["..."]), { b: "2", a: "1" })).toBe('r1/ops:{a="1",b="2"}');
  });

  it("20 tool_failed chains of one server share one group under the defaults", () => {
    const root = compileRouting(DEFAULT_ROUTING_CONFIG).root;
    const keys = new Set(
      Array.from({ length: 20 }, (_, i) => {
        const [alert] = alertsForChain({
          chainId: `c${i}`,
          sessionId: `s${i}`,
          state: "tool_failed",
          layer: "request",
          reasons: ["request.tool_error"],
          server: "fs",
          tool: `tool-${i}`,
          labels: {},
        });
        if (!alert) throw new Error("expected an alert");
        const [match] = matchRoutes(root, alert.labels);
        return match && groupKey(match, alert.labels);
      }),
    );
    expect(keys.size).toBe(1);
  });
});

describe("nextGroupAction", () => {
  const timing = { groupWait: 30_000, groupInterval: 300_000, repeatInterval: 14_400_000 };
  const T = 1_000_000;
  type Case = { name: string; group: GroupState; firing: string[]; now: number; expected: GroupAction };
  const cases: Case[] = [
    {
      name: "new group inside groupWait waits",
      group: { firstSeenAt: T, lastSentFingerprints: [] },
      firing: ["a"],
      now: T + 29_999,
      expected: { action: "wait", until: T + 30_000, why: "group_wait" },
    },
    {
      name: "new group at groupWait sends",
      group: { firstSeenAt: T, lastSentFingerprints: [] },
      firing: ["a", "b"],
      now: T + 30_000,
      expected: { action: "send", why: "group_wait" },
    },
    {
      name: "alerts resolved before the first send: nothing to say",
      group: { firstSeenAt: T, lastSentFingerprints: [] },
      firing: [],
      now: T + 60_000,
      expected: { action: "idle" },
    },
    {
      name: "a new alert joins: wait for the next flush tick",
      group: { firstSeenAt: T, lastSentAt: T + 30_000, lastSentFingerprints: ["a"] },
      firing: ["a", "b"],
      now: T + 60_000,
      expected: { action: "wait", until: T + 330_000, why: "group_interval" },
    },
    {
      name: "a changed group sends at the next flush tick",
      group: { firstSeenAt: T, lastSentAt: T + 30_000, lastSentFingerprints: ["a"] },
      firing: ["a", "b"],
      now: T + 330_000,
      expected: { action: "send", why: "group_interval" },
    },
    {
      name: "the cadence is anchored at the first tick, not at a late send (Alertmanager: not since the last send)",
      group: { firstSeenAt: T, lastSentAt: T + 35_000, lastSentFingerprints: ["a"] },
      firing: ["a", "b"],
      now: T + 330_000,
      expected: { action: "send", why: "group_interval" },
    },
    {
      name: "a first send between ticks (a delayed alert): the next change waits for the next tick only",
      group: { firstSeenAt: T, lastSentAt: T + 100_000, lastSentFingerprints: ["a"] },
      firing: ["a", "b"],
      now: T + 200_000,
      expected: { action: "wait", until: T + 330_000, why: "group_interval" },
    },
    {
      name: "ticks passed with nothing to send: a change evaluated at a later tick goes out then",
      group: { firstSeenAt: T, lastSentAt: T + 30_000, lastSentFingerprints: ["a"] },
      firing: ["b"],
      now: T + 930_000 + 20,
      expected: { action: "send", why: "group_interval" },
    },
    {
      name: "everything resolved: the resolved notification goes at the next tick",
      group: { firstSeenAt: T, lastSentAt: T + 30_000, lastSentFingerprints: ["a"] },
      firing: [],
      now: T + 330_000,
      expected: { action: "send", why: "group_interval" },
    },
    {
      name: "unchanged and firing: wait for repeatInterval",
      group: { firstSeenAt: T, lastSentAt: T + 30_000, lastSentFingerprints: ["b", "a"] },
      firing: ["a", "b"],
      now: T + 330_000,
      expected: { action: "wait", until: T + 30_000 + 14_400_000, why: "repeat_interval" },
    },
    {
      name: "unchanged and firing: repeat counted from the send's tick, so a late flush does not push it a tick later",
      group: { firstSeenAt: T, lastSentAt: T + 30_250, lastSentFingerprints: ["b", "a"] },
      firing: ["a", "b"],
      now: T + 330_000,
      expected: { action: "wait", until: T + 30_000 + 14_400_000, why: "repeat_interval" },
    },
    {
      name: "unchanged and firing: repeat at repeatInterval",
      group: { firstSeenAt: T, lastSentAt: T + 30_000, lastSentFingerprints: ["a"] },
      firing: ["a"],
      now: T + 30_000 + 14_400_000,
      expected: { action: "send", why: "repeat_interval" },
    },
    {
      name: "resolved notification already sent: idle",
      group: { firstSeenAt: T, lastSentAt: T + 330_000, lastSentFingerprints: [] },
      firing: [],
      now: T + 99_000_000,
      expected: { action: "idle" },
    },
  ];
  it.each(cases)("$name", ({ group, firing, now, expected }) => {
    expect(nextGroupAction(group, firing, now, timing)).toEqual(expected);
  });

  it("a repeatInterval that is not a multiple of groupInterval repeats at the first tick after it", () => {
    const odd = { groupWait: 0, groupInterval: 60_000, repeatInterval: 90_000 };
    const group = { firstSeenAt: T, lastSentAt: T, lastSentFingerprints: ["a"] };
    expect(nextGroupAction(group, ["a"], T + 1, odd)).toEqual({
      action: "wait",
      until: T + 120_000,
      why: "repeat_interval",
    });
    expect(nextGroupAction(group, ["a"], T + 120_000, odd)).toEqual({
      action: "send",
      why: "repeat_interval",
    });
  });

  it("flush ticks: groupWait after the first alert, then every groupInterval", () => {
    const group = { firstSeenAt: T };
    expect(flushTickAtOrAfter(group, T + 1, timing)).toBe(T + 30_000);
    expect(flushTickAtOrAfter(group, T + 30_000, timing)).toBe(T + 30_000);
    expect(flushTickAtOrAfter(group, T + 30_001, timing)).toBe(T + 330_000);
    expect(flushTickAtOrAfter(group, T + 630_000, timing)).toBe(T + 630_000);
    expect(flushTickAtOrBefore(group, T + 629_999, timing)).toBe(T + 330_000);
    expect(flushTickAtOrBefore(group, T + 5, timing)).toBe(T + 30_000);
  });

  it("lists what resolved since the last send", () => {
    expect(
      resolvedSinceLastSend({ firstSeenAt: 0, lastSentAt: 1, lastSentFingerprints: ["a", "b"] }, ["b", "c"]),
    ).toEqual(["a"]);
  });
});

describe("alertReadyAt (bounded delay)", () => {
  const T = 5_000_000;
  const TEN_MIN = 600_000;
  it.each([
    {
      name: "no delay: ready at once",
      input: { firingSince: T, delayMs: 0, confirmOnNextRecord: false },
      ready: T,
    },
    {
      name: "delay only: after the wait",
      input: { firingSince: T, delayMs: TEN_MIN, confirmOnNextRecord: true },
      ready: T + TEN_MIN,
    },
    {
      name: "stale on the next record: ready then",
      input: { firingSince: T, delayMs: TEN_MIN, confirmOnNextRecord: true, confirmedAt: T + 60_000 },
      ready: T + 60_000,
    },
    {
      name: "confirmation ignored without confirmOnNextRecord (outcome.pending)",
      input: { firingSince: T, delayMs: TEN_MIN, confirmOnNextRecord: false, confirmedAt: T + 60_000 },
      ready: T + TEN_MIN,
    },
    {
      name: "a confirmation not after firingSince is the same record",
      input: { firingSince: T, delayMs: TEN_MIN, confirmOnNextRecord: true, confirmedAt: T },
      ready: T + TEN_MIN,
    },
  ])("$name", ({ input, ready }) => expect(alertReadyAt(input)).toBe(ready));
});
