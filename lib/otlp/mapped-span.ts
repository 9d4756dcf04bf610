import { isTimestampInRange } from "../contract/timestamp";
import { EXCEPTION, RECEIPT, SEMCONV } from "./attribute-names";
import type { Source } from "./evidence-reader";
import type { OtlpEvent, OtlpSpan } from "./span";
import { endMs, intAttr, methodOf, nanosToMs, type SpanMethod } from "./span-values";

/** A redacted span with what every rule asks of it worked out once. */
export type MappedSpan = {
  span: OtlpSpan;
  method: SpanMethod | undefined;
  startMs: number;
  endMs: number | undefined;
};

/** `undefined` when the span's start is not a usable time (reported as `invalid_time`). */
export function mapSpan(span: OtlpSpan): MappedSpan | undefined {
  const startMs = nanosToMs(span.startTimeUnixNano);
  if (startMs === undefined || !isTimestampInRange(startMs)) return undefined;
  const end = endMs(span);
  return {
    span,
    method: methodOf(span),
    startMs,
    // An end before the start is clock skew between the two readings: the span ended, at its start.
    endMs: end !== undefined && isTimestampInRange(end) ? Math.max(end, startMs) : undefined,
  };
}

/** Session spans' times recur in every chain of the session: their strings are remembered, up to this many. */
const MAX_REMEMBERED_TIMES = 10_000;
const isoTimes = new Map<number, string>();

export function isoOf(ms: number): string {
  let iso = isoTimes.get(ms);
  if (iso === undefined) {
    if (isoTimes.size >= MAX_REMEMBERED_TIMES) isoTimes.clear();
    iso = new Date(ms).toISOString();
    isoTimes.set(ms, iso);
  }
  return iso;
}

/** Event times in range; an event with an unusable time is not evidence. */
export function eventMs(event: OtlpEvent): number | undefined {
  const ms = nanosToMs(event.timeUnixNano);
  return ms !== undefined && isTimestampInRange(ms) ? ms : undefined;
}

/** Every time a span carries: start, end and its events'. observedAt is the latest over a chain's spans. */
export function timesOf(mapped: MappedSpan): number[] {
  const times = [mapped.startMs];
  if (mapped.endMs !== undefined) times.push(mapped.endMs);
  for (const event of mapped.span.events) {
    const ms = eventMs(event);
    if (ms !== undefined) times.push(ms);
  }
  return times;
}

export function attributeSource(mapped: MappedSpan): Source {
  return { span: mapped.span, attributes: mapped.span.attributes };
}

export function exceptionEvents(mapped: MappedSpan): OtlpEvent[] {
  return mapped.span.events.filter((event) => event.name === EXCEPTION.event);
}

/**
 * The JSON-RPC error code a span reports: the conventions' attributes, else the SDK exception's code. A numeric
 * `error.type` from 100 to 599 is an HTTP status (the transport failed), not a JSON-RPC code.
 */
export function errorCodeOf(mapped: MappedSpan): number | undefined {
  const { attributes } = mapped.span;
  const fromStatus = intAttr(attributes, SEMCONV.responseStatusCode);
  if (fromStatus !== undefined) return fromStatus;
  const fromType = intAttr(attributes, SEMCONV.errorType);
  if (fromType !== undefined) return httpStatusOf(fromType) === undefined ? fromType : undefined;
  for (const event of exceptionEvents(mapped)) {
    const code = intAttr(event.attributes, RECEIPT.exceptionCode);
    if (code !== undefined) return code;
  }
  return undefined;
}

/** The HTTP status a span failed with: `http.response.status_code` ≥ 400, or an `error.type` of 400–599. */
export function failedHttpStatusOf(mapped: MappedSpan): number | undefined {
  const { attributes } = mapped.span;
  const status = intAttr(attributes, SEMCONV.httpStatusCode) ?? intAttr(attributes, SEMCONV.errorType);
  return status !== undefined && status >= 400 ? httpStatusOf(status) : undefined;
}

function httpStatusOf(code: number): number | undefined {
  return code >= 100 && code <= 599 ? code : undefined;
}

/** The request failed in any way the span shows: error status, `error.type`, or a recorded exception. */
export function failed(mapped: MappedSpan): boolean {
  const { span } = mapped;
  return (
    span.status.code === "error" ||
    span.attributes[SEMCONV.errorType] !== undefined ||
    exceptionEvents(mapped).length > 0
  );
}

/** Ended without failing: the peer answered with a result. */
export function succeeded(mapped: MappedSpan): boolean {
  return mapped.endMs !== undefined && !failed(mapped);
}

/** Latest first by start time, then by span id, so every choice among spans is deterministic. */
export function latestFirst(a: MappedSpan, b: MappedSpan): number {
  if (a.startMs !== b.startMs) return b.startMs - a.startMs;
  return a.span.spanId < b.span.spanId ? 1 : a.span.spanId > b.span.spanId ? -1 : 0;
}
