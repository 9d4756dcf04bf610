import type { State } from "../contract/states";
import { parseTimestamp } from "../contract/timestamp";
import { formatDuration } from "./format";

// The session page's timeline (as Langfuse nests a trace's spans): each call of the session as a bar on one time
// axis from the session's start, and the handshake and catalog reads as marks on it. Pure: the API gives each
// chain's current record's times (SessionCallTimes), this lays them out in percent of the axis.

/** The times of one chain's current record, as the session API answers them (ISO texts as stored). */
export type SessionCallTimes = {
  chainId: string;
  state: State;
  tool: string | null;
  /** The call's `startedAt`; null for a chain without a call (a session-only record). */
  startedAt: string | null;
  /** The response's `at`; null while none came. */
  respondedAt: string | null;
  /**
   * A task-augmented call's task (its response only says the task was made): its status and last update. The call
   * ends when the task does (completed, failed or cancelled).
   */
  taskStatus: string | null;
  taskUpdatedAt: string | null;
  deadlineMs: number | null;
  /** The session's `protocol.initializedAt` (the handshake), when the record has one. */
  initializedAt: string | null;
  /** The catalog's `refreshedAt`, when the record has a catalog. */
  catalogRefreshedAt: string | null;
};

/**
 * How a bar ends: at the response (a task's end); at the deadline when none came before it passed; `open` while the call still
 * runs within its deadline (the bar reaches now).
 */
export type BarEnd = "response" | "deadline" | "open";

export type TimelineBar = {
  chainId: string;
  state: State;
  tool: string | null;
  /** Milliseconds from the session's start. */
  offsetMs: number;
  durationMs: number;
  end: BarEnd;
  leftPct: number;
  widthPct: number;
  /** "1.2 s", "no response after 30 s", "running for 4 s". */
  durationText: string;
};

export type TimelineMark = { kind: "handshake" | "catalog"; offsetMs: number; leftPct: number; at: string };

export type TimelineTick = { offsetMs: number; leftPct: number; label: string };

export type SessionTimeline = {
  /** The earliest time seen: the handshake, a catalog read or a call's start (ISO). */
  startAt: string;
  spanMs: number;
  bars: TimelineBar[];
  marks: TimelineMark[];
  ticks: TimelineTick[];
  /** Chains of the session without a call (no bar): session or catalog evidence alone. */
  withoutCall: number;
  /** Calls left out past `maxBars` (the latest ones). */
  leftOut: number;
};

/** A bar is never drawn thinner than this share of the axis, so an instant call still shows and can be clicked. */
export const MIN_BAR_PCT = 0.6;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Steps a clock reads as round: 1-2-5 below a second, then 1, 2, 5, 10, 15 and 30 of seconds and minutes, hours. */
const STEPS = [
  ...[1, 2, 5, 10, 20, 50, 100, 200, 500],
  ...[1, 2, 5, 10, 15, 30].map((n) => n * SECOND),
  ...[1, 2, 5, 10, 15, 30].map((n) => n * MINUTE),
  ...[1, 2, 3, 6, 12].map((n) => n * HOUR),
  ...[1, 2, 7].map((n) => n * DAY),
];

/**
 * Lays the session's calls on one axis: bars sorted by start (then chain id), at most `maxBars`; marks for each
 * distinct handshake and catalog read; ticks at a round step (1, 2 or 5 × a power of ten ms), at most `maxTicks`
 * plus the origin. Null when no time parses (nothing to draw).
 */
export function layoutSessionTimeline(
  calls: SessionCallTimes[],
  nowMs: number,
  { maxBars = 200, maxTicks = 6 }: { maxBars?: number; maxTicks?: number } = {},
): SessionTimeline | null {
  const spans = calls
    .map((call) => ({ call, span: callSpan(call, nowMs) }))
    .filter((entry): entry is { call: SessionCallTimes; span: CallSpan } => entry.span !== null)
    .sort((a, b) => a.span.startMs - b.span.startMs || a.call.chainId.localeCompare(b.call.chainId));
  const shown = spans.slice(0, maxBars);
  const markTimes = new Map<string, { kind: TimelineMark["kind"]; ms: number; at: string }>();
  for (const call of calls) {
    for (const [kind, at] of [
      ["handshake", call.initializedAt],
      ["catalog", call.catalogRefreshedAt],
    ] as const) {
      const ms = at ? parseTimestamp(at) : undefined;
      if (ms !== undefined && at) markTimes.set(`${kind}:${ms}`, { kind, ms, at });
    }
  }
  const marks = [...markTimes.values()];
  const times = [...shown.flatMap(({ span }) => [span.startMs, span.endMs]), ...marks.map((mark) => mark.ms)];
  if (times.length === 0) return null;
  const startMs = Math.min(...times);
  // An axis of at least one millisecond: a lone instant still has a place.
  const spanMs = Math.max(Math.max(...times) - startMs, 1);
  const pct = (ms: number) => ((ms - startMs) / spanMs) * 100;
  const bars = shown.map(({ call, span }) => {
    const leftPct = Math.min(pct(span.startMs), 100 - MIN_BAR_PCT);
    return {
      chainId: call.chainId,
      state: call.state,
      tool: call.tool,
      offsetMs: span.startMs - startMs,
      durationMs: span.endMs - span.startMs,
      end: span.end,
      leftPct,
      widthPct: Math.max(pct(span.endMs) - pct(span.startMs), MIN_BAR_PCT),
      durationText: durationText(span.end, span.endMs - span.startMs),
    };
  });
  return {
    startAt: new Date(startMs).toISOString(),
    spanMs,
    bars,
    marks: marks
      .sort((a, b) => a.ms - b.ms || a.kind.localeCompare(b.kind))
      .map((mark) => ({ kind: mark.kind, offsetMs: mark.ms - startMs, leftPct: pct(mark.ms), at: mark.at })),
    ticks: axisTicks(spanMs, maxTicks),
    withoutCall: calls.filter((call) => call.startedAt === null).length,
    leftOut: spans.length - shown.length,
  };
}

const TASK_ENDED = new Set(["completed", "failed", "cancelled"]);

type CallSpan = { startMs: number; endMs: number; end: BarEnd };

function callSpan(call: SessionCallTimes, nowMs: number): CallSpan | null {
  const startMs = call.startedAt ? parseTimestamp(call.startedAt) : undefined;
  if (startMs === undefined) return null;
  const respondedMs = call.taskStatus
    ? TASK_ENDED.has(call.taskStatus) && call.taskUpdatedAt
      ? parseTimestamp(call.taskUpdatedAt)
      : undefined
    : call.respondedAt
      ? parseTimestamp(call.respondedAt)
      : undefined;
  // A response stamped before its start (clock skew between hosts) is drawn as an instant, not backwards.
  if (respondedMs !== undefined) return { startMs, endMs: Math.max(respondedMs, startMs), end: "response" };
  const deadlineAt = call.deadlineMs !== null ? startMs + call.deadlineMs : undefined;
  if (deadlineAt !== undefined && deadlineAt <= nowMs) return { startMs, endMs: deadlineAt, end: "deadline" };
  return { startMs, endMs: Math.max(nowMs, startMs), end: "open" };
}

function durationText(end: BarEnd, ms: number): string {
  if (end === "deadline") return `no response after ${formatDuration(ms)}`;
  if (end === "open") return `running for ${formatDuration(ms)}`;
  return formatDuration(ms);
}

/**
 * Ticks from 0 at a round step: the smallest of STEPS that gives at most `maxTicks` after the origin (whole weeks
 * past the last).
 */
export function axisTicks(spanMs: number, maxTicks: number): TimelineTick[] {
  const step =
    STEPS.find((candidate) => spanMs / candidate <= maxTicks) ??
    7 * DAY * Math.ceil(spanMs / (7 * DAY * maxTicks));
  const ticks: TimelineTick[] = [];
  for (let offset = 0; offset <= spanMs; offset += step) {
    ticks.push({
      offsetMs: offset,
      leftPct: (offset / spanMs) * 100,
      label: offset === 0 ? "0" : `+${formatDuration(offset)}`,
    });
  }
  return ticks;
}
