// One notification group's decision at an instant: groupWait, groupInterval, repeatInterval, resolved
// notifications, silences (muted, not resolved), route delays and their early confirmation.
import { describe, expect, it } from "vitest";
import { compileRouting } from "@/lib/routing/compile";
import type { TRoutingConfig } from "@/lib/routing/config";
import { alertsForChain } from "@/lib/routing/alerts";
import { groupKey } from "@/lib/routing/group";
import { compileSilence } from "@/lib/routing/silence";
import type { MemberAlert } from "@/lib/routing/alert-rows";
import { type GroupSnapshot, planGroupFlush } from "@/lib/routing/group-flush-plan";

const config: TRoutingConfig = {
  version: 1,
  channels: [{ name: "ops", ownerRole: "ops", targets: [] }],
  route: {
    receiver: "ops",
    groupBy: ["server"],
    groupWait: "10s",
    groupInterval: "1m",
    repeatInterval: "1h",
    routes: [{ matchers: ['state="stale_catalog"'], delay: "10m", confirmOnNextRecord: true }],
  },
  inhibitRules: [],
  silences: [],
};
const routing = compileRouting(config);
const T = Date.parse("2026-11-30T10:00:00.000Z");

function member(
  chainId: string,
  state: "tool_failed" | "stale_catalog",
  over: Partial<MemberAlert> = {},
): MemberAlert {
  const [alert] = alertsForChain({
    chainId,
    sessionId: "s",
    state,
    layer: state === "stale_catalog" ? "catalog" : "request",
    reasons: [state === "stale_catalog" ? "catalog.incomplete" : "request.tool_error"],
    server: "srv",
    labels: {},
  });
  if (!alert) throw new Error("alerting state");
  return {
    fingerprint: alert.fingerprint,
    chainId,
    sessionId: "s",
    state,
    severity: alert.severity,
    status: "firing",
    labels: alert.labels,
    reasons: alert.reasons,
    retrySafe: null,
    recordId: "r",
    confirmedAt: null,
    resolvedBy: null,
    startsAt: new Date(T),
    endsAt: null,
    ...over,
  };
}

const keyFor = (route: { id: string; receiver: string; groupBy: string[] }) =>
  groupKey({ routeId: route.id, receiver: route.receiver, groupBy: route.groupBy }, { server: "srv" });
const group = (members: MemberAlert[], over: Partial<GroupSnapshot> = {}): GroupSnapshot => ({
  groupKey: keyFor(routing.root),
  receiver: "ops",
  firstSeenAt: new Date(T),
  lastSentAt: null,
  lastSentFingerprints: [],
  members: members.map((m) => m.fingerprint),
  ...over,
});

describe("planGroupFlush", () => {
  const a = member("a", "tool_failed");
  const b = member("b", "tool_failed");

  it("waits groupWait, then sends every firing alert in one notification", () => {
    const early = planGroupFlush(group([a, b]), [a, b], routing, T + 5_000, {});
    expect(early.notification).toBeUndefined();
    expect(early.nextActionAt?.getTime()).toBe(T + 10_000);
    const due = planGroupFlush(group([a, b]), [a, b], routing, T + 10_000, {});
    expect(due.notification?.alerts.map((x) => [x.alert.chainId, x.status])).toEqual([
      ["a", "firing"],
      ["b", "firing"],
    ]);
    expect(due.nextActionAt?.getTime()).toBe(T + 10_000 + 3_600_000);
  });

  // Sent at the first flush tick (groupWait after the first alert); the group's cadence runs from there.
  const firstTick = T + 10_000;

  it("an unchanged group repeats after repeatInterval", () => {
    const sent = group([a, b], {
      lastSentAt: new Date(firstTick),
      lastSentFingerprints: [a.fingerprint, b.fingerprint],
    });
    expect(planGroupFlush(sent, [a, b], routing, firstTick + 60_000, {}).notification).toBeUndefined();
    expect(
      planGroupFlush(sent, [a, b], routing, firstTick + 3_600_000, {}).notification?.alerts,
    ).toHaveLength(2);
  });

  it("a resolution is sent at the next flush tick, then the alert leaves the group", () => {
    const resolvedB = { ...b, status: "resolved", endsAt: new Date(firstTick + 1000) };
    const sent = group([a, b], {
      lastSentAt: new Date(firstTick),
      lastSentFingerprints: [a.fingerprint, b.fingerprint],
    });
    expect(planGroupFlush(sent, [a, resolvedB], routing, T + 30_000, {}).nextActionAt?.getTime()).toBe(
      firstTick + 60_000,
    );
    const plan = planGroupFlush(sent, [a, resolvedB], routing, firstTick + 60_000, {});
    expect(plan.notification?.alerts.map((x) => x.status)).toEqual(["firing", "resolved"]);
    expect(plan.members).toEqual([a.fingerprint]);
  });

  it("an alert resolved before it was ever sent is dropped silently, and an empty group goes", () => {
    const resolvedA = { ...a, status: "resolved" };
    expect(planGroupFlush(group([a]), [resolvedA], routing, T + 20_000, {})).toMatchObject({ drop: true });
  });

  it("a silenced alert is neither sent nor reported resolved, and is re-checked every groupInterval", () => {
    const silence = compileSilence({
      id: "s1",
      matchers: ['chain="b"'],
      startsAt: new Date(T).toISOString(),
      endsAt: new Date(T + 86_400_000).toISOString(),
      createdBy: "alice",
      comment: "known",
    });
    const sent = group([a, b], {
      lastSentAt: new Date(T),
      lastSentFingerprints: [a.fingerprint, b.fingerprint],
    });
    const plan = planGroupFlush(sent, [a, b], routing, T + 120_000, { extraSilences: [silence] });
    expect(plan.notification).toBeUndefined();
    expect(plan.nextActionAt?.getTime()).toBe(T + 120_000 + 60_000);
  });

  it("a delayed alert waits out its route's delay, unless a newer record confirms it first", () => {
    const stale = member("c", "stale_catalog");
    const staleGroup = group([stale], {
      groupKey: keyFor(routing.root.routes[0] as (typeof routing.root.routes)[number]),
    });
    const waiting = planGroupFlush(staleGroup, [stale], routing, T + 60_000, {});
    expect(waiting.notification).toBeUndefined();
    expect(waiting.nextActionAt?.getTime()).toBe(T + 600_000);
    expect(planGroupFlush(staleGroup, [stale], routing, T + 600_000, {}).notification?.alerts).toHaveLength(
      1,
    );
    const confirmed = { ...stale, confirmedAt: new Date(T + 30_000) };
    expect(
      planGroupFlush(staleGroup, [confirmed], routing, T + 30_000, {}).notification?.alerts,
    ).toHaveLength(1);
  });

  describe("an alert whose route really changed", () => {
    const moved = (receiver: string, routes: TRoutingConfig["route"]["routes"] = config.route.routes) =>
      compileRouting({
        ...config,
        channels: [...config.channels, { name: "tools", ownerRole: "tools", targets: [] }],
        route: { ...config.route, receiver, routes },
      });
    // Announced at the group's first tick (firstSeenAt + groupWait); its next ticks are a groupInterval apart.
    const firstTick = T + 10_000;
    const announced = (members: MemberAlert[]) =>
      group(members, {
        lastSentAt: new Date(firstTick),
        lastSentFingerprints: members.map((m) => m.fingerprint),
      });

    it("is resolved on the old receiver at the group's next tick, the rest still firing", () => {
      const tools = moved("ops", [
        { matchers: [`chain="${b.chainId}"`], receiver: "tools" },
        ...(config.route.routes ?? []),
      ]);
      const early = planGroupFlush(announced([a, b]), [a, b], tools, firstTick + 30_000, {});
      expect([early.notification, early.nextActionAt?.getTime()]).toEqual([undefined, firstTick + 60_000]);
      const plan = planGroupFlush(announced([a, b]), [a, b], tools, firstTick + 60_000, {});
      expect(plan.notification?.receiver).toBe("ops");
      expect(plan.notification?.alerts.map((x) => [x.alert.chainId, x.status, x.endsAt])).toEqual([
        ["a", "firing", undefined],
        ["b", "resolved", new Date(firstTick + 60_000).toISOString()],
      ]);
      expect([plan.drop, plan.members]).toEqual([false, [a.fingerprint]]);
    });

    it("when nothing routes to the group any more: announced alerts resolve at once on the stored receiver", () => {
      const c = member("c", "tool_failed");
      const sent = group([a, b, c], {
        lastSentAt: new Date(T),
        lastSentFingerprints: [a.fingerprint, b.fingerprint],
      });
      const plan = planGroupFlush(sent, [a, b, c], moved("tools"), T + 1_000, {});
      expect(plan.notification?.receiver).toBe("ops");
      expect(plan.notification?.alerts.map((x) => [x.alert.chainId, x.status])).toEqual([
        ["a", "resolved"],
        ["b", "resolved"],
      ]);
      expect(plan.drop).toBe(true);
    });

    it("never announced: it leaves without a word", () => {
      const plan = planGroupFlush(group([a, b]), [a, b], moved("tools"), T + 60_000, {});
      expect([plan.notification, plan.drop]).toEqual([undefined, true]);
    });
  });
});
