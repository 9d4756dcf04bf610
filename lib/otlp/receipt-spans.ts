import { RECEIPT, RECEIPT_EVENTS, SEMCONV, TRACELOOP } from "./attribute-names";
import { type EvidenceReader, parseJsonRpcId, PROBLEM_CODES } from "./evidence-reader";
import type { MappedSpan } from "./mapped-span";
import type { OtlpSpan } from "./span";

/** A tools/call span and the tool it names. */
export type ToolCall = { call: MappedSpan; tool: string };

/**
 * The span a call reads `receipt.*` from besides its own. `shared`: that span is the receipt span of other calls
 * too, so only what is true of all of them is read from it (session, catalog, labels), never one call's evidence.
 */
export type CallReceipt = { span: MappedSpan; shared: boolean };

/** Attributes and events that describe one call: a span receipting several calls says them of none. */
const CALL_ATTRIBUTE_PREFIXES = ["receipt.call.", "receipt.effect.", "receipt.outcome."];
const CALL_EVENTS: ReadonlySet<string> = new Set([
  RECEIPT_EVENTS.effect,
  RECEIPT_EVENTS.outcome,
  RECEIPT_EVENTS.progress,
  RECEIPT_EVENTS.cancelled,
  RECEIPT_EVENTS.task,
]);

/** Ancestors walked up from a call at most (a parent chain is never this deep; a cycle stops earlier). */
const MAX_DEPTH = 64;

/**
 * Which span receipts each call, by the spans' structure, never by the tool's name alone:
 * 1. its nearest ancestor (the parentSpanId chain within its session) that names its tool in `receipt.call.tool`,
 *    or its parent when that carries `receipt.*` without naming another tool;
 * 2. else, once its ancestry is known up to a root span (at once for traceloop, which parents call spans to its
 *    session span), a span of the trace naming the tool in `receipt.call.tool` whose time encloses the call's
 *    start and that receipts no call below it, matched to calls one to one by elimination (matchEnclosing). A span
 *    naming a `receipt.call.request_id` matches only the call of that request id (its `jsonrpc.request.id` or own
 *    `receipt.call.request_id`). A call left with no match while such spans enclose it is reported
 *    `ambiguous_receipt` and reads none of them.
 * A span that is so the receipt span of several calls is `shared` for each (reported `ambiguous_receipt`), unless
 * its request id names one of them, which then reads it whole.
 */
export function receiptSpansOf(
  reader: EvidenceReader,
  calls: readonly ToolCall[],
  byId: ReadonlyMap<string, MappedSpan>,
  receiptsByTrace: ReadonlyMap<string, readonly MappedSpan[]>,
): Map<MappedSpan, CallReceipt> {
  const chosen = new Map<MappedSpan, MappedSpan>();
  const unplaced: ToolCall[] = [];
  for (const item of calls) {
    const ancestry = ancestorReceipt(item, byId);
    if (ancestry.receipt !== undefined) chosen.set(item.call, ancestry.receipt);
    else if (ancestry.known || isTraceloopCall(item.call)) unplaced.push(item);
  }
  const receiptsOfDescendants = new Set(chosen.values());
  const candidatesOf = new Map<MappedSpan, MappedSpan[]>();
  for (const item of unplaced) {
    const candidates = enclosingCandidates(item, receiptsByTrace, receiptsOfDescendants);
    if (candidates.length > 0) candidatesOf.set(item.call, candidates);
  }
  for (const [call, receipt] of matchEnclosing(candidatesOf)) chosen.set(call, receipt);
  for (const [call, candidates] of candidatesOf) {
    if (chosen.has(call)) continue;
    reader.report(
      call.span,
      PROBLEM_CODES.ambiguousReceipt,
      `${candidates.length} span(s) naming the call's tool in ${RECEIPT.callTool} enclose it, none its ancestor, and which is its own cannot be told (another call of the tool is enclosed too): none is read`,
    );
  }
  const callsByReceipt = new Map<MappedSpan, MappedSpan[]>();
  for (const [call, receipt] of chosen) {
    const list = callsByReceipt.get(receipt);
    if (list === undefined) callsByReceipt.set(receipt, [call]);
    else list.push(call);
  }
  const result = new Map<MappedSpan, CallReceipt>();
  for (const [receipt, receipted] of callsByReceipt) {
    const named = requestIdOf(receipt.span);
    const owners = named === undefined ? [] : receipted.filter((call) => callRequestIdOf(call) === named);
    const owner = receipted.length === 1 ? receipted[0] : owners.length === 1 ? owners[0] : undefined;
    for (const call of receipted) {
      const shared = call !== owner;
      result.set(call, { span: receipt, shared });
      if (shared) {
        reader.report(
          call.span,
          PROBLEM_CODES.ambiguousReceipt,
          `its receipt span ${receipt.span.spanId} receipts ${receipted.length} calls: that span's call evidence (receipt.call.*, effect, outcome, progress, task, cancelled) is read ${owner === undefined ? "for none of them" : "only for the call its receipt.call.request_id names"}`,
        );
      }
    }
  }
  return result;
}

/**
 * Enclosing spans matched to calls one to one, by elimination only: a span that is the one candidate left of exactly
 * one call is that call's, and is then no other call's candidate (a receipt span wraps one call). Calls of one tool
 * run at once under `Promise.all` start in turn (receipt span, its call, the next receipt span, its call), so the
 * first call has one candidate, the next one once the first's is taken, and so on. A span that is the one candidate
 * left of two calls, or calls left with two or more, are matched to nothing: never a guess.
 */
function matchEnclosing(
  candidatesOf: ReadonlyMap<MappedSpan, readonly MappedSpan[]>,
): Map<MappedSpan, MappedSpan> {
  // Each call is examined once, when one candidate is left to it, and each candidate span taken once: the work is
  // the number of (call, candidate) pairs, not that times the number of calls (Promise.all of hundreds of calls).
  const callsOf = new Map<MappedSpan, MappedSpan[]>();
  const left = new Map<MappedSpan, number>();
  for (const [call, candidates] of candidatesOf) {
    left.set(call, candidates.length);
    for (const candidate of candidates) push(callsOf, candidate, call);
  }
  const matched = new Map<MappedSpan, MappedSpan>();
  const taken = new Set<MappedSpan>();
  /** Calls whose one candidate left is the key: a key with two or more is never anyone's. */
  const soleOf = new Map<MappedSpan, MappedSpan[]>();
  let frontier = [...candidatesOf.keys()].filter((call) => left.get(call) === 1);
  while (frontier.length > 0) {
    const touched = new Set<MappedSpan>();
    for (const call of frontier) {
      const only = candidatesOf.get(call)?.find((candidate) => !taken.has(candidate));
      if (only === undefined) continue;
      push(soleOf, only, call);
      touched.add(only);
    }
    const next: MappedSpan[] = [];
    for (const receipt of touched) {
      const sole = soleOf.get(receipt) ?? [];
      const call = sole[0];
      if (sole.length !== 1 || call === undefined) continue;
      matched.set(call, receipt);
      taken.add(receipt);
      for (const other of callsOf.get(receipt) ?? []) {
        if (other === call) continue;
        const count = (left.get(other) ?? 0) - 1;
        left.set(other, count);
        if (count === 1) next.push(other);
      }
    }
    frontier = next;
  }
  return matched;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** A shared receipt span as a source: its session, catalog and label attributes, no call's evidence. */
export function sharedReceiptSpan(span: OtlpSpan): OtlpSpan {
  const attributes = Object.fromEntries(
    Object.entries(span.attributes).filter(
      ([key]) => !CALL_ATTRIBUTE_PREFIXES.some((prefix) => key.startsWith(prefix)),
    ),
  );
  return { ...span, attributes, events: span.events.filter((event) => !CALL_EVENTS.has(event.name)) };
}

/**
 * The nearest ancestor receipting the call, and whether the call's ancestry is known: every parent found up to a
 * root span. With a parent not (yet) among the spans, the receipt span may be above it: no other span is read.
 */
function ancestorReceipt(
  { call, tool }: ToolCall,
  byId: ReadonlyMap<string, MappedSpan>,
): { receipt?: MappedSpan; known: boolean } {
  const { traceId } = call.span;
  const seen = new Set<string>([call.span.spanId]);
  let parentId = call.span.parentSpanId;
  for (let depth = 0; parentId !== undefined && depth < MAX_DEPTH && !seen.has(parentId); depth++) {
    seen.add(parentId);
    const ancestor = byId.get(`${traceId}/${parentId}`);
    if (ancestor === undefined) return { known: false };
    const named = ancestor.span.attributes[RECEIPT.callTool];
    if (named === tool) return { receipt: ancestor, known: true };
    if (depth === 0 && named === undefined && carriesReceipt(ancestor))
      return { receipt: ancestor, known: true };
    parentId = ancestor.span.parentSpanId;
  }
  return { known: true };
}

/** traceloop parents its call spans to its own session span: the agent's receipt span is never above them. */
const isTraceloopCall = (call: MappedSpan) => call.span.attributes[TRACELOOP.spanKind] === TRACELOOP.toolKind;

function enclosingCandidates(
  { call, tool }: ToolCall,
  receiptsByTrace: ReadonlyMap<string, readonly MappedSpan[]>,
  receiptsOfDescendants: ReadonlySet<MappedSpan>,
): MappedSpan[] {
  const enclosing = (receiptsByTrace.get(call.span.traceId) ?? []).filter(
    (mapped) =>
      mapped !== call &&
      !receiptsOfDescendants.has(mapped) &&
      mapped.span.attributes[RECEIPT.callTool] === tool &&
      mapped.startMs <= call.startMs &&
      (mapped.endMs === undefined || mapped.endMs >= call.startMs),
  );
  const own = callRequestIdOf(call);
  if (own === undefined) return enclosing;
  const byRequest = enclosing.filter((mapped) => requestIdOf(mapped.span) === own);
  return byRequest.length > 0
    ? byRequest
    : enclosing.filter((mapped) => requestIdOf(mapped.span) === undefined);
}

const requestIdOf = (span: OtlpSpan): string | undefined => idText(span.attributes[RECEIPT.requestId]);

function callRequestIdOf(call: MappedSpan): string | undefined {
  return requestIdOf(call.span) ?? idText(call.span.attributes[SEMCONV.requestId]);
}

function idText(value: OtlpSpan["attributes"][string] | undefined): string | undefined {
  const id = value === undefined ? undefined : parseJsonRpcId(value);
  return id === undefined ? undefined : String(id);
}

export function carriesReceipt(mapped: MappedSpan): boolean {
  return (
    Object.keys(mapped.span.attributes).some((key) => key.startsWith("receipt.")) ||
    mapped.span.events.some((event) => event.name.startsWith("receipt."))
  );
}
