import { errorClass } from "../contract/error-class";
import { MAX_DURATION_MS } from "../contract/limits";
import type { Call, CallResponse, CallTask, Verifier } from "../contract/record";
import { RECEIPT, SEMCONV, TOOL_ERROR } from "./attribute-names";
import {
  type EvidenceReader,
  expectedOneOf,
  parseBool,
  parseEnum,
  parseId,
  parseInteger,
  parseJsonRpcId,
  type Source,
} from "./evidence-reader";
import { type FollowUpKeys, type FollowUps, progressOfSpans, taskOfSpans } from "./follow-up-spans";
import { hashToolName } from "./hashing";
import { type MappedSpan, errorCodeOf, exceptionEvents, failed, isoOf } from "./mapped-span";
import { receiptEventEvidence } from "./receipt-events";
import { CLIENT_SIDE_CODES } from "./session-evidence";
import { stringAttr } from "./span-values";

/**
 * The deadline of a call that does not say (`receipt.call.deadline_ms`): five minutes, or the span's own duration
 * when longer, so that a call which ended is judged on its evidence, never as past its own deadline.
 */
export const DEFAULT_DEADLINE_MS = 300_000;

const SIDE_EFFECTS = ["none", "write", "unknown"] as const;
const VERIFIERS = ["file_hash", "db_row", "http_status", "test", "llm_judge", "other"] as const;
const RESULT_TYPES = ["complete", "input_required", "task"] as const;

export type CallInput = {
  call: MappedSpan;
  tool: string;
  /** The call span first, then its parent span: where `receipt.call.*` and receipt events are read. */
  receiptSources: readonly Source[];
  /** `notifications/cancelled` spans sent inside the call span. */
  cancellations: readonly MappedSpan[];
  toolNameHashes: readonly string[] | undefined;
  /** The call's notifications/progress and tasks/* spans, found by its progress token and task id (or parent). */
  followUps?: (keys: FollowUpKeys) => FollowUps;
};

/**
 * The record's `call`, whether the server answered it (which the session layer needs), and the follow-up spans
 * it read (progress notifications, task requests).
 */
export function callEvidence(
  reader: EvidenceReader,
  input: CallInput,
): { call: Call; answered: boolean; followUps: MappedSpan[] } {
  const { call: mapped, receiptSources: sources } = input;
  const { span } = mapped;
  const pickId = (key: string) =>
    reader.pick(sources, key, parseId, "expected 1-128 characters of A-Z a-z 0-9 . _ : -");
  const duration = (key: string) =>
    reader.pick(sources, key, parseInteger(1, MAX_DURATION_MS), "expected 1 ms to 365 days");

  const requestId =
    reader.pick(sources, RECEIPT.requestId, parseJsonRpcId, "expected a string or an integer") ??
    nonEmpty(stringAttr(span.attributes, SEMCONV.requestId)) ??
    `span:${span.spanId}`;
  const ownDuration = mapped.endMs === undefined ? 0 : mapped.endMs - mapped.startMs;
  const deadlineMs =
    duration(RECEIPT.deadlineMs) ?? Math.min(MAX_DURATION_MS, Math.max(DEFAULT_DEADLINE_MS, ownDuration));
  let inactivityMs = duration(RECEIPT.inactivityMs) ?? deadlineMs;
  if (inactivityMs > deadlineMs) {
    reader.report(
      span,
      "invalid_attribute",
      `${RECEIPT.inactivityMs} ignored: expected at most the deadline`,
    );
    inactivityMs = deadlineMs;
  }
  const events = receiptEventEvidence(reader, sources);
  const { response, noAnswerAtMs } = responseOf(mapped);
  const progressToken = reader.pick(
    sources,
    RECEIPT.progressToken,
    parseJsonRpcId,
    "expected a string or an integer",
  );
  const taskId = events.task?.id ?? pickId(RECEIPT.taskId);
  const followUps = input.followUps?.({ progressToken, taskId }) ?? { progress: [], tasks: [] };
  const fromSpans = taskOfSpans(reader, followUps.tasks, taskId);
  const task =
    fromSpans.task !== undefined &&
    (events.task === undefined || (fromSpans.atMs ?? 0) >= Date.parse(events.task.updatedAt))
      ? fromSpans.task
      : events.task;

  const call: Call = {
    requestId,
    tool: input.tool,
    sideEffect:
      reader.pick(sources, RECEIPT.sideEffect, parseEnum(SIDE_EFFECTS), expectedOneOf(SIDE_EFFECTS)) ??
      "unknown",
    startedAt: isoOf(mapped.startMs),
    deadlineMs,
    inactivityMs,
    progress: inArrivalOrder(events.progress, progressOfSpans(reader, followUps.progress, progressToken)),
  };
  const inCatalog =
    reader.pick(sources, RECEIPT.inCatalog, parseBool, "expected a boolean") ??
    input.toolNameHashes?.includes(hashToolName(input.tool));
  if (inCatalog !== undefined) call.inCatalog = inCatalog;
  const operationKey = pickId(RECEIPT.operationKey);
  if (operationKey !== undefined) call.operationKey = operationKey;
  const verifier = reader.pick(
    sources,
    RECEIPT.expectedVerifier,
    parseEnum<Verifier>(VERIFIERS),
    expectedOneOf(VERIFIERS),
  );
  if (verifier !== undefined) call.expectedVerifier = verifier;
  if (progressToken !== undefined) call.progressToken = progressToken;

  const cancelTimes = [
    ...events.cancelledMs,
    ...input.cancellations.map((cancel) => cancel.startMs),
    ...(fromSpans.cancelledMs === undefined ? [] : [fromSpans.cancelledMs]),
    ...(noAnswerAtMs === undefined ? [] : [noAnswerAtMs]),
  ];
  if (cancelTimes.length > 0) call.cancelledAt = isoOf(Math.min(...cancelTimes));
  if (response !== undefined) call.response = withResultType(reader, sources, response, task);
  if (task !== undefined && call.response?.resultType === "task") call.task = task;
  if (events.effect !== undefined) call.effect = events.effect;
  if (events.outcome !== undefined) call.outcome = events.outcome;
  const read = [...followUps.progress, ...followUps.tasks].sort((a, b) => a.startMs - b.startMs);
  return { call, answered: response !== undefined, followUps: read };
}

/** Progress from Receipt's events and from notifications/progress spans, merged by time (each list is sorted). */
function inArrivalOrder(events: Call["progress"], spans: Call["progress"]): Call["progress"] {
  if (spans.length === 0) return events;
  if (events.length === 0) return spans;
  return [...events, ...spans]
    .map((entry, index) => ({ entry, index, ms: Date.parse(entry.at) }))
    .sort((a, b) => a.ms - b.ms || a.index - b.index)
    .map(({ entry }) => entry);
}

/**
 * What the server sent, read from the span: a JSON-RPC error code (`rpc.response.status_code`, a numeric
 * `error.type`, or the SDK exception's "MCP error <code>") is an error response; `error.type` tool_error is a
 * result with isError; an ended span that did not fail is a result. A span that ended failing any other way —
 * a timeout, an abort, a closed transport — got no answer: the client stopped waiting at its end, which the
 * record says as `cancelledAt` (the TypeScript SDK sends notifications/cancelled on timeouts and aborts).
 * traceloop marks an isError result with error status and no exception: that is a result with isError.
 */
function responseOf(mapped: MappedSpan): { response?: CallResponse; noAnswerAtMs?: number } {
  const at = mapped.endMs;
  if (at === undefined) return {};
  const { span } = mapped;
  const errorType = stringAttr(span.attributes, SEMCONV.errorType);
  const code = errorCodeOf(mapped);
  const exceptions = exceptionEvents(mapped);
  const aborted = exceptions.some((event) => event.attributes[RECEIPT.exceptionAbort] === true);
  if (code !== undefined && !CLIENT_SIDE_CODES.has(code) && !aborted) {
    return { response: { at: isoOf(at), kind: "error", error: { code, class: errorClass(code) } } };
  }
  if (errorType === TOOL_ERROR) return { response: { at: isoOf(at), kind: "result", isError: true } };
  if (!failed(mapped)) return { response: { at: isoOf(at), kind: "result", isError: false } };
  const traceloopToolError =
    mapped.method?.source === "traceloop" && exceptions.length === 0 && errorType === undefined;
  if (traceloopToolError) return { response: { at: isoOf(at), kind: "result", isError: true } };
  return { noAnswerAtMs: at };
}

function withResultType(
  reader: EvidenceReader,
  sources: readonly Source[],
  response: CallResponse,
  task: CallTask | undefined,
): CallResponse {
  if (response.kind !== "result") return response;
  const resultType =
    reader.pick(sources, RECEIPT.resultType, parseEnum(RESULT_TYPES), expectedOneOf(RESULT_TYPES)) ??
    (task !== undefined ? "task" : undefined);
  return resultType === undefined ? response : { ...response, resultType };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
