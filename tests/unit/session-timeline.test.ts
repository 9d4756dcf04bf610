import { describe, expect, it } from "vitest";
import {
  axisTicks,
  layoutSessionTimeline,
  MIN_BAR_PCT,
  type SessionCallTimes,
} from "@/lib/dashboard/session-timeline";

const T = Date.parse("2026-12-01T10:00:00.000Z");
const iso = (ms: number) => new Date(T + ms).toISOString();

const call = (chainId: string, over: Partial<SessionCallTimes>): SessionCallTimes => ({
  chainId,
  state: "healthy",
  tool: "create_report",
  startedAt: null,
  respondedAt: null,
  taskStatus: null,
  taskUpdatedAt: null,
  deadlineMs: 30_000,
  initializedAt: null,
  catalogRefreshedAt: null,
  ...over,
});

describe("the session timeline's layout", () => {
  it("puts each call on one axis from the handshake, sorted by start, with its duration and marks", () => {
    const timeline = layoutSessionTimeline(
      [
        call("c:late", {
          state: "false_success",
          startedAt: iso(6_000),
          respondedAt: iso(10_000),
          initializedAt: iso(0),
          catalogRefreshedAt: iso(1_000),
        }),
        call("c:early", {
          startedAt: iso(2_000),
          respondedAt: iso(3_500),
          initializedAt: iso(0),
          catalogRefreshedAt: iso(1_000),
        }),
      ],
      T + 60_000,
    );
    expect(timeline?.startAt).toBe(iso(0));
    expect(timeline?.spanMs).toBe(10_000);
    expect(timeline?.bars).toEqual([
      expect.objectContaining({
        chainId: "c:early",
        offsetMs: 2_000,
        durationMs: 1_500,
        leftPct: 20,
        widthPct: 15,
      }),
      expect.objectContaining({
        chainId: "c:late",
        state: "false_success",
        offsetMs: 6_000,
        durationMs: 4_000,
        end: "response",
        leftPct: 60,
        widthPct: 40,
        durationText: "4.0 s",
      }),
    ]);
    // The same handshake and catalog read in both records: one mark each.
    expect(timeline?.marks).toEqual([
      { kind: "handshake", offsetMs: 0, leftPct: 0, at: iso(0) },
      { kind: "catalog", offsetMs: 1_000, leftPct: 10, at: iso(1_000) },
    ]);
    expect(timeline?.ticks.map((tick) => tick.label)).toEqual([
      "0",
      "+2.0 s",
      "+4.0 s",
      "+6.0 s",
      "+8.0 s",
      "+10 s",
    ]);
    expect(timeline?.withoutCall).toBe(0);
  });

  it("ends a call without a response at its deadline once passed, or at now while it runs", () => {
    const timeline = layoutSessionTimeline(
      [
        call("c:timed-out", { startedAt: iso(0), deadlineMs: 5_000 }),
        call("c:running", { startedAt: iso(8_000), deadlineMs: 60_000 }),
      ],
      T + 10_000,
    );
    const [timedOut, running] = timeline?.bars ?? [];
    expect(timedOut).toMatchObject({
      end: "deadline",
      durationMs: 5_000,
      durationText: "no response after 5.0 s",
    });
    expect(running).toMatchObject({ end: "open", durationMs: 2_000, durationText: "running for 2.0 s" });
    expect(timeline?.spanMs).toBe(10_000);
  });

  it("ends a task-augmented call when its task ends, not at the response that made the task", () => {
    const timeline = layoutSessionTimeline(
      [
        call("c:task-done", {
          startedAt: iso(0),
          respondedAt: iso(100),
          taskStatus: "completed",
          taskUpdatedAt: iso(4_000),
        }),
        call("c:task-running", {
          startedAt: iso(1_000),
          respondedAt: iso(1_100),
          taskStatus: "working",
          taskUpdatedAt: iso(2_000),
          deadlineMs: 60_000,
        }),
        call("c:task-failed", {
          startedAt: iso(2_000),
          respondedAt: iso(2_050),
          taskStatus: "failed",
          taskUpdatedAt: iso(2_500),
        }),
      ],
      T + 5_000,
    );
    expect(timeline?.bars.map((bar) => [bar.chainId, bar.end, bar.durationMs])).toEqual([
      ["c:task-done", "response", 4_000],
      ["c:task-running", "open", 4_000],
      ["c:task-failed", "response", 500],
    ]);
  });

  it("keeps an instant call visible, and a response stamped before its start is an instant", () => {
    const timeline = layoutSessionTimeline(
      [
        call("c:long", { startedAt: iso(0), respondedAt: iso(100_000) }),
        call("c:instant", { startedAt: iso(100_000), respondedAt: iso(99_000) }),
      ],
      T,
    );
    const instant = timeline?.bars[1];
    expect(instant).toMatchObject({ durationMs: 0, widthPct: MIN_BAR_PCT, leftPct: 100 - MIN_BAR_PCT });
  });

  it("counts chains without a call, draws no bar for them, and is null when nothing has a time", () => {
    const timeline = layoutSessionTimeline(
      [
        call("c:session-only", { initializedAt: iso(0) }),
        call("c:call", { startedAt: iso(500), respondedAt: iso(700) }),
      ],
      T,
    );
    expect(timeline?.bars.map((bar) => bar.chainId)).toEqual(["c:call"]);
    expect(timeline?.withoutCall).toBe(1);
    expect(layoutSessionTimeline([call("c:x", {})], T)).toBeNull();
    expect(layoutSessionTimeline([], T)).toBeNull();
    expect(layoutSessionTimeline([call("c:bad", { startedAt: "not a time" })], T)).toBeNull();
  });

  it("shows at most maxBars calls, the earliest, and says how many were left out", () => {
    const calls = Array.from({ length: 5 }, (_, i) =>
      call(`c:${i}`, { startedAt: iso(i * 1000), respondedAt: iso(i * 1000 + 10) }),
    );
    const timeline = layoutSessionTimeline(calls, T, { maxBars: 3 });
    expect(timeline?.bars.map((bar) => bar.chainId)).toEqual(["c:0", "c:1", "c:2"]);
    expect(timeline?.leftOut).toBe(2);
  });

  it("a lone instant still lays out on a one-millisecond axis", () => {
    const timeline = layoutSessionTimeline([call("c:one", { startedAt: iso(0), respondedAt: iso(0) })], T);
    expect(timeline?.spanMs).toBe(1);
    expect(timeline?.bars[0]).toMatchObject({ leftPct: 0, widthPct: MIN_BAR_PCT });
  });
});

describe("the axis ticks", () => {
  it("take the smallest step a clock reads as round", () => {
    expect(axisTicks(47 * 60_000, 6).map((tick) => tick.label)).toEqual([
      "0",
      "+10 min",
      "+20 min",
      "+30 min",
      "+40 min",
    ]);
    expect(axisTicks(80_000, 6).map((tick) => tick.offsetMs)).toEqual([
      0, 15_000, 30_000, 45_000, 60_000, 75_000,
    ]);
    expect(axisTicks(30 * 86_400_000, 6).map((tick) => tick.label)).toEqual([
      "0",
      "+7.0 d",
      "+14.0 d",
      "+21.0 d",
      "+28.0 d",
    ]);
    expect(axisTicks(400 * 86_400_000, 6)).toHaveLength(6);
    expect(axisTicks(1_000, 6).map((tick) => tick.offsetMs)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(axisTicks(45_000, 6).map((tick) => tick.offsetMs)).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
    expect(axisTicks(7, 6).map((tick) => tick.offsetMs)).toEqual([0, 2, 4, 6]);
    expect(axisTicks(1, 6).map((tick) => tick.leftPct)).toEqual([0, 100]);
  });
});
