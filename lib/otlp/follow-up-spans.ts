import { errorClass } from "../contract/error-class";
import type { CallTask, ProgressEntry } from "../contract/record";
import { METHODS, RECEIPT, SEMCONV, TOOL_ERROR } from "./attribute-names";
import {
  type EvidenceReader,
  expectedOneOf,
  parseBool,
  parseEnum,
  parseId,
  parseJsonRpcId,
  parseNumber,
} from "./evidence-reader";
import { attributeSource, errorCodeOf, failed, isoOf, type MappedSpan } from "./mapped-span";
import { CLIENT_SIDE_CODES } from "./session-evidence";
import { isClientRequest, stringAttr } from "./span-values";

// The MCP 2025-11-25 messages that follow a call: the server's notifications/progress, and the client's tasks/get,
// tasks/result and tasks/cancel on the task the call created. Each is its own span, often in another trace than the
// call (a poll loop, a notification handler): they are found by the call's progress token and task id, or as
// children of the call span.

/** The methods whose spans add to a call after it was sent. */
export const FOLLOW_UP_METHODS: ReadonlySet<string> = new Set([
  METHODS.progress,
  METHODS.tasksGet,
  METHODS.tasksResult,
  METHODS.tasksCancel,
]);

const TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"] as const;

/** A call's follow-up spans: progress notifications and task requests, in no particular order. */
export type FollowUps = { progress: MappedSpan[]; tasks: MappedSpan[] };

/** What identifies a call's follow-ups besides their parent span: its progress token and task id. */
export type FollowUpKeys = { progressToken: string | number | undefined; taskId: string | undefined };

export type FollowUpIndex = (call: MappedSpan, keys: FollowUpKeys) => FollowUps;

const tokenKey = (token: string | number) => `${typeof token}:${token}`;

/** The session's follow-up spans, by parent span, progress token and task id, built once a session. */
export function followUpIndex(group: readonly MappedSpan[]): FollowUpIndex {
  const byParent = new Map<string, MappedSpan[]>();
  const progressByToken = new Map<string, MappedSpan[]>();
  const tasksById = new Map<string, MappedSpan[]>();
  const add = (map: Map<string, MappedSpan[]>, key: string, mapped: MappedSpan) => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [mapped]);
    else list.push(mapped);
  };
  for (const mapped of group) {
    const method = mapped.method?.method;
    if (method === undefined || !FOLLOW_UP_METHODS.has(method)) continue;
    const { span } = mapped;
    // A task request is the client's: a server instrumented in the session reports the same request as a server span.
    if (method !== METHODS.progress && !isClientRequest(span)) continue;
    if (span.parentSpanId !== undefined) add(byParent, `${span.traceId}/${span.parentSpanId}`, mapped);
    if (method === METHODS.progress) {
      const token = parseJsonRpcId(span.attributes[RECEIPT.progressEventToken] ?? "");
      if (token !== undefined) add(progressByToken, tokenKey(token), mapped);
    } else {
      const id = stringAttr(span.attributes, RECEIPT.taskId);
      if (id !== undefined) add(tasksById, id, mapped);
    }
  }
  return (call, keys) => {
    const children = byParent.get(`${call.span.traceId}/${call.span.spanId}`) ?? [];
    const progress = new Set(children.filter((mapped) => mapped.method?.method === METHODS.progress));
    const tasks = new Set(children.filter((mapped) => mapped.method?.method !== METHODS.progress));
    if (keys.progressToken !== undefined) {
      // A token names one request while it is in flight: a notification outside the call's span is another's.
      const end = call.endMs ?? Number.POSITIVE_INFINITY;
      for (const mapped of progressByToken.get(tokenKey(keys.progressToken)) ?? []) {
        if (mapped.startMs >= call.startMs && mapped.startMs <= end) progress.add(mapped);
      }
    }
    if (keys.taskId !== undefined) {
      for (const mapped of tasksById.get(keys.taskId) ?? []) {
        if (mapped.startMs >= call.startMs) tasks.add(mapped);
      }
    }
    return { progress: [...progress], tasks: [...tasks] };
  };
}

/**
 * A progress entry a `notifications/progress` span: `receipt.progress.value` (and `.total`) on the span, at its start;
 * its token is `receipt.progress.token`, else the call's own (a notification under the call span is the call's).
 */
export function progressOfSpans(
  reader: EvidenceReader,
  spans: readonly MappedSpan[],
  callToken: string | number | undefined,
): ProgressEntry[] {
  const entries: { ms: number; entry: ProgressEntry }[] = [];
  const seen = new Set<string>();
  for (const mapped of [...spans].sort((a, b) => a.startMs - b.startMs)) {
    const source = attributeSource(mapped);
    const token =
      reader.read(source, RECEIPT.progressEventToken, parseJsonRpcId, "expected a string or an integer") ??
      callToken;
    const progress = reader.read(source, RECEIPT.progressValue, parseNumber, "expected a number");
    if (token === undefined || progress === undefined) continue;
    const entry: ProgressEntry = { at: isoOf(mapped.startMs), token, progress };
    const total = reader.read(source, RECEIPT.progressTotal, parseNumber, "expected a number");
    if (total !== undefined) entry.total = total;
    // One notification seen from both ends (the server's send and the client's receipt, both instrumented) is one
    // entry: a repeated value is no progress either way.
    const key = `${typeof token}:${token}/${progress}/${total ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push({ ms: mapped.startMs, entry });
  }
  return entries.sort((a, b) => a.ms - b.ms).map(({ entry }) => entry);
}

/** A task status one span showed, at the time the client learned it (the span's end). */
type TaskSighting = { ms: number; task: Omit<CallTask, "updatedAt" | "polledAt"> };

export type SpanTaskEvidence = {
  /** The task as the latest sighting shows it; undefined when no span said a status. */
  task?: CallTask;
  /** The latest sighting's time, to weigh it against the agent's `receipt.task` events. */
  atMs?: number;
  /** When the client sent tasks/cancel, the earliest. */
  cancelledMs?: number;
};

/**
 * The task a call's task spans show. tasks/get answered: the status in `receipt.task.status` (the result's
 * `status`). tasks/result answered: completed, `isError` from `error.type` tool_error or
 * `receipt.task.result_is_error`; a JSON-RPC error: failed with its code. tasks/cancel: the client cancelled at its
 * start; answered, the task is cancelled. `updatedAt` is when the latest status was first seen (polls that see the
 * same status again are no activity: the server's lastUpdatedAt did not move), `polledAt` the last answered
 * tasks/get. A span that failed without a server answer (timeout, abort) shows nothing.
 */
export function taskOfSpans(
  reader: EvidenceReader,
  spans: readonly MappedSpan[],
  callTaskId: string | undefined,
): SpanTaskEvidence {
  const sightings: TaskSighting[] = [];
  let polledMs: number | undefined;
  let cancelledMs: number | undefined;
  for (const mapped of spans) {
    const source = attributeSource(mapped);
    const id =
      reader.read(source, RECEIPT.taskId, parseId, "expected 1-128 characters of A-Z a-z 0-9 . _ : -") ??
      callTaskId;
    if (id === undefined) continue;
    const method = mapped.method?.method;
    if (method === METHODS.tasksCancel) cancelledMs = Math.min(cancelledMs ?? mapped.startMs, mapped.startMs);
    const at = mapped.endMs;
    if (at === undefined) continue;
    const code = errorCodeOf(mapped);
    const serverError = code !== undefined && !CLIENT_SIDE_CODES.has(code);
    if (method === METHODS.tasksResult) {
      if (serverError) {
        sightings.push({ ms: at, task: { id, status: "failed", error: { code, class: errorClass(code) } } });
        continue;
      }
      const toolError = stringAttr(mapped.span.attributes, SEMCONV.errorType) === TOOL_ERROR;
      if (failed(mapped) && !toolError) continue;
      const isError =
        reader.read(source, RECEIPT.taskResultIsError, parseBool, "expected a boolean") ?? toolError;
      sightings.push({ ms: at, task: { id, status: "completed", result: { isError } } });
      continue;
    }
    if (failed(mapped)) continue;
    if (method === METHODS.tasksCancel) {
      sightings.push({ ms: at, task: { id, status: "cancelled" } });
      continue;
    }
    polledMs = Math.max(polledMs ?? at, at);
    const status = reader.read(
      source,
      RECEIPT.taskStatus,
      parseEnum(TASK_STATUSES),
      expectedOneOf(TASK_STATUSES),
    );
    if (status === undefined) continue;
    const task: TaskSighting["task"] = { id, status };
    const isError = reader.read(source, RECEIPT.taskResultIsError, parseBool, "expected a boolean");
    if (status === "completed" && isError !== undefined) task.result = { isError };
    sightings.push({ ms: at, task });
  }
  const evidence: SpanTaskEvidence = {};
  if (cancelledMs !== undefined) evidence.cancelledMs = cancelledMs;
  sightings.sort((a, b) => a.ms - b.ms);
  const latest = sightings.at(-1);
  if (latest === undefined) return evidence;
  let firstSeen = latest.ms;
  for (let i = sightings.length - 2; i >= 0; i--) {
    const earlier = sightings[i] as TaskSighting;
    if (earlier.task.status !== latest.task.status || earlier.task.id !== latest.task.id) break;
    firstSeen = earlier.ms;
  }
  const task: CallTask = { ...latest.task, updatedAt: isoOf(firstSeen) };
  if (polledMs !== undefined) task.polledAt = isoOf(polledMs);
  evidence.task = task;
  evidence.atMs = latest.ms;
  return evidence;
}
