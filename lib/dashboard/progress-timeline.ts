import type { Call } from "../contract/record";

export type ProgressPoint = {
  at: string;
  /** Milliseconds after the call started. */
  offsetMs: number;
  progress: number;
  total: number | null;
  valid: boolean;
  /** Why an entry was ignored (contract §3 rule 15), in words. */
  ignoredBecause: string | null;
};

export type ProgressTimeline = {
  deadlineMs: number;
  inactivityMs: number;
  points: ProgressPoint[];
  /** When the call last showed valid activity, as an offset from its start. */
  lastActivityOffsetMs: number;
  responseOffsetMs: number | null;
  /** When a definitive result arrived (a final response, or a task that completed or failed); null if none. */
  finishedOffsetMs: number | null;
  /** The evaluation time, as an offset from the start (where "now" sits on the clocks). */
  evaluatedOffsetMs: number;
};

/** A task's result time is its status time; a plain call's is its final response. */
function finishedAt(call: Call, terminalAt: number): number {
  if (call.task && (call.task.status === "completed" || call.task.status === "failed"))
    return Date.parse(call.task.updatedAt);
  return terminalAt;
}

const sameToken = (a: string | number | undefined, b: string | number) =>
  a !== undefined && typeof a === typeof b && a === b;

/**
 * A call's progress against both clocks: the absolute deadline from startedAt and the inactivity window from the
 * last valid activity. Validity follows rule 15: the call's token, inside [startedAt, at], strictly increasing,
 * and not after a terminal result's response.
 */
export function progressTimeline(call: Call, evaluatedAt: string): ProgressTimeline {
  const started = Date.parse(call.startedAt);
  const at = Date.parse(evaluatedAt);
  const response = call.response;
  const terminalAt =
    response && (response.kind === "error" || (response.resultType ?? "complete") === "complete")
      ? Date.parse(response.at)
      : Number.POSITIVE_INFINITY;
  let previous = Number.NEGATIVE_INFINITY;
  let lastActivity = started;
  const points = call.progress.map((entry): ProgressPoint => {
    const entryAt = Date.parse(entry.at);
    let ignoredBecause: string | null = null;
    if (call.progressToken === undefined) ignoredBecause = "the call declared no progress token";
    else if (!sameToken(call.progressToken, entry.token)) ignoredBecause = "another progress token";
    else if (entryAt < started) ignoredBecause = "before the call started";
    else if (entryAt > at) ignoredBecause = "after the evaluation time";
    else if (entryAt > terminalAt) ignoredBecause = "after the final response";
    else if (!(entry.progress > previous)) ignoredBecause = "progress did not increase";
    if (ignoredBecause === null) {
      previous = entry.progress;
      lastActivity = Math.max(lastActivity, entryAt);
    }
    return {
      at: entry.at,
      offsetMs: entryAt - started,
      progress: entry.progress,
      total: entry.total ?? null,
      valid: ignoredBecause === null,
      ignoredBecause,
    };
  });
  if (response?.resultType === "input_required")
    lastActivity = Math.max(lastActivity, Date.parse(response.at));
  if (call.task && (call.task.status === "working" || call.task.status === "input_required")) {
    lastActivity = Math.max(lastActivity, Date.parse(call.task.updatedAt));
  }
  return {
    deadlineMs: call.deadlineMs,
    inactivityMs: call.inactivityMs,
    points,
    lastActivityOffsetMs: lastActivity - started,
    responseOffsetMs: response ? Date.parse(response.at) - started : null,
    finishedOffsetMs: Number.isFinite(finishedAt(call, terminalAt))
      ? finishedAt(call, terminalAt) - started
      : null,
    evaluatedOffsetMs: at - started,
  };
}
