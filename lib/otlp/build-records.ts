import canonicalize from "canonicalize";
import { LABEL_KEY_PATTERN, MAX_LABEL_VALUE_LENGTH, MAX_LABELS, type HealthRecord } from "../contract/record";
import { METHODS, RECEIPT } from "./attribute-names";
import { authEvidenceIndex } from "./auth-evidence";
import { callEvidence } from "./call-evidence";
import { EvidenceReader, type MappingProblem, PROBLEM_CODES, type Source } from "./evidence-reader";
import { type FollowUpIndex, followUpIndex } from "./follow-up-spans";
import { contentHash } from "./hashing";
import { attributeSource, failed, isoOf, type MappedSpan, mapSpan, timesOf } from "./mapped-span";
import { type CallReceipt, receiptSpansOf, sharedReceiptSpan, type ToolCall } from "./receipt-spans";
import { redactSpan } from "./redact";
import {
  catalogEvidence,
  contributingSessionSpans,
  type SessionSpans,
  sessionEvidence,
  sessionSpanIndex,
} from "./session-evidence";
import { observedLayersIndex } from "./observed-layers";
import { sessionKeyOf } from "./session-key";
import type { OtlpSpan } from "./span";
import { isClientRequest, methodOf, stringAttr, stringsAttr } from "./span-values";

/**
 * The health records of the sessions the spans belong to: one per tools/call client span (its chain), and one
 * session-only record for a session whose initialize, server/discover or tools/list failed (so a failed
 * handshake is classified even when no call follows). Spans are redacted first, so raw spans give the same records.
 * Deterministic: the same span set, in any order and however split across calls, gives byte-identical records.
 * `redacted`: every span has been through `redactSpan` already, as the server's are before it maps them; redaction is
 * idempotent, so the records are the same, and the second pass (about a sixth of the mapping's CPU) is skipped.
 */
export function buildRecords(
  spans: OtlpSpan[],
  options: { redacted?: boolean } = {},
): { records: unknown[]; problems: MappingProblem[] } {
  const reader = new EvidenceReader();
  const sessions = new Map<string, MappedSpan[]>();
  for (const span of uniqueSpans(options.redacted ? spans : spans.map(redactSpan))) {
    const masked = stringsAttr(span.attributes, RECEIPT.masked);
    if (masked !== undefined && masked.length > 0) {
      reader.report(
        span,
        PROBLEM_CODES.maskedAttribute,
        `${masked.join(", ")} dropped: the value looked like a credential or held a control character; the span is kept without it`,
      );
    }
    const truncated = stringsAttr(span.attributes, RECEIPT.truncated);
    if (truncated !== undefined && truncated.length > 0) {
      reader.report(
        span,
        PROBLEM_CODES.maskedAttribute,
        `${truncated.join(", ")} cut to the record's length (names 128 characters, versions 64); the span is kept with the rest`,
      );
    }
    const mapped = mapSpan(span);
    if (mapped === undefined) {
      if (methodOf(span) !== undefined) {
        reader.report(
          span,
          PROBLEM_CODES.invalidTime,
          "start time is not Unix nanoseconds within years 0001-9999",
        );
      }
      continue;
    }
    const key = sessionKeyOf(span);
    const group = sessions.get(key);
    if (group === undefined) sessions.set(key, [mapped]);
    else group.push(mapped);
  }
  const records: HealthRecord[] = [];
  for (const [key, group] of sessions) records.push(...sessionRecords(reader, key, group));
  records.sort((a, b) => compare(a.chainId, b.chainId));
  return { records, problems: uniqueProblems(reader.problems) };
}

/**
 * What every chain of a session reads, worked out once for the session: each chain then costs what its own spans
 * cost, not a pass over the whole session (which made a session's rebuild quadratic in its size).
 */
type SessionIndex = {
  byId: Map<string, MappedSpan>;
  sessionSpansAt: (refMs: number) => SessionSpans;
  authAt: (
    reader: EvidenceReader,
    refMs: number,
  ) => { auth?: HealthRecord["session"]["auth"]; used: MappedSpan[] };
  observedAt: (refMs: number, session: HealthRecord["session"]) => HealthRecord["observed"] | undefined;
  /** Spans naming a tool in `receipt.call.tool`, by trace id (receiptSpansOf). */
  receiptsByTrace: Map<string, MappedSpan[]>;
  /** notifications/cancelled spans by `traceId/parentSpanId`. */
  cancellationsByParent: Map<string, MappedSpan[]>;
  /** notifications/progress and tasks/* spans of a call. */
  followUps: FollowUpIndex;
};

function indexSession(group: MappedSpan[]): SessionIndex {
  const receiptsByTrace = new Map<string, MappedSpan[]>();
  const cancellationsByParent = new Map<string, MappedSpan[]>();
  const add = (map: Map<string, MappedSpan[]>, key: string, mapped: MappedSpan) => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [mapped]);
    else list.push(mapped);
  };
  for (const mapped of group) {
    if (mapped.span.attributes[RECEIPT.callTool] !== undefined)
      add(receiptsByTrace, mapped.span.traceId, mapped);
    if (mapped.method?.method === METHODS.cancelled) {
      add(cancellationsByParent, `${mapped.span.traceId}/${mapped.span.parentSpanId ?? ""}`, mapped);
    }
  }
  return {
    byId: new Map(group.map((mapped) => [`${mapped.span.traceId}/${mapped.span.spanId}`, mapped])),
    sessionSpansAt: sessionSpanIndex(group),
    authAt: authEvidenceIndex(group),
    observedAt: observedLayersIndex(group),
    receiptsByTrace,
    cancellationsByParent,
    followUps: followUpIndex(group),
  };
}

function sessionRecords(reader: EvidenceReader, key: string, group: MappedSpan[]): HealthRecord[] {
  const sessionId = `otlp:${contentHash(key)}`;
  const index = indexSession(group);
  const calls = group.filter(
    (mapped) => mapped.method?.method === METHODS.toolsCall && isClientRequest(mapped.span),
  );
  const records: HealthRecord[] = [];
  const toolCalls: ToolCall[] = [];
  for (const call of calls) {
    const tool = call.method?.tool;
    if (tool === undefined || tool.length > 128) {
      reader.report(
        call.span,
        PROBLEM_CODES.missingToolName,
        "tools/call span names no tool (gen_ai.tool.name), or one over 128 characters",
      );
      continue;
    }
    toolCalls.push({ call, tool });
  }
  const receipts = receiptSpansOf(reader, toolCalls, index.byId, index.receiptsByTrace);
  for (const { call, tool } of toolCalls) {
    records.push(callRecord(reader, index, { call, tool, receipt: receipts.get(call), sessionId }));
  }
  // A handshake or tool list that failed is worth a record of its own, whatever followed: the session's chain
  // then shows it, and a later successful retry supersedes it (chain.no_call). A quiet session gets none.
  const failures = group.filter(
    (mapped) =>
      SESSION_REQUESTS.has(mapped.method?.method ?? "") &&
      isClientRequest(mapped.span) &&
      mapped.endMs !== undefined &&
      failed(mapped),
  );
  if (failures.length === 0) return records;
  const spans = index.sessionSpansAt(Number.POSITIVE_INFINITY);
  const contributing = [...contributingSessionSpans(spans), ...failures];
  const session = sessionEvidence(reader, spans, [], false, sessionId);
  const { auth, used } = index.authAt(reader, Number.POSITIVE_INFINITY);
  if (auth !== undefined) session.auth = auth;
  contributing.push(...used);
  const { catalog } = catalogEvidence(reader, spans, []);
  const record: Omit<HealthRecord, "recordId"> = {
    schemaVersion: 1,
    chainId: `otlp:session:${contentHash(key)}`,
    observedAt: isoOf(latestTime(contributing)),
    session,
  };
  const observed = index.observedAt(Number.POSITIVE_INFINITY, session);
  if (observed !== undefined) record.observed = observed;
  return [...records, withIdentity(withLabels(reader, record, contributing, []), catalog)];
}

const SESSION_REQUESTS: ReadonlySet<string> = new Set([
  METHODS.initialize,
  METHODS.discover,
  METHODS.toolsList,
]);

/** `receipt`: the agent's span that receipts the call besides the call span itself, if any (receiptSpansOf). */
type CallChain = { call: MappedSpan; tool: string; receipt: CallReceipt | undefined; sessionId: string };

function callRecord(reader: EvidenceReader, index: SessionIndex, chain: CallChain): HealthRecord {
  const { call, receipt } = chain;
  const receiptSpans = receipt === undefined ? [call] : [call, receipt.span];
  const receiptSources = [attributeSource(call)];
  if (receipt !== undefined) {
    const span = receipt.shared ? sharedReceiptSpan(receipt.span.span) : receipt.span.span;
    receiptSources.push({ span, attributes: span.attributes });
  }
  const cancellations = index.cancellationsByParent.get(`${call.span.traceId}/${call.span.spanId}`) ?? [];
  const spans = index.sessionSpansAt(call.startMs);
  const { catalog, toolNameHashes } = catalogEvidence(reader, spans, receiptSources);
  const evidence = callEvidence(reader, {
    call,
    tool: chain.tool,
    receiptSources,
    cancellations,
    toolNameHashes,
    followUps: (keys) => index.followUps(call, keys),
  });
  const session = sessionEvidence(reader, spans, receiptSources, evidence.answered, chain.sessionId);
  const { auth, used } = index.authAt(reader, call.endMs ?? call.startMs);
  if (auth !== undefined) session.auth = auth;
  const contributing = [
    ...receiptSpans,
    ...cancellations,
    ...evidence.followUps,
    ...contributingSessionSpans(spans),
    ...used,
  ];
  const record: Omit<HealthRecord, "recordId"> = {
    schemaVersion: 1,
    chainId: `otlp:${call.span.traceId}:${call.span.spanId}`,
    observedAt: isoOf(latestTime(contributing)),
    session,
    call: evidence.call,
  };
  const observed = index.observedAt(call.startMs, session);
  if (observed !== undefined) record.observed = observed;
  return withIdentity(withLabels(reader, record, contributing, receiptSources), catalog);
}

/** The latest time among the chain's spans: it never goes back as more of them arrive. */
function latestTime(contributing: readonly MappedSpan[]): number {
  return Math.max(...contributing.flatMap(timesOf));
}

/** `receipt.label.<key>` from the resources of the chain's spans, then its receipt sources (which win). */
function withLabels<T extends Omit<HealthRecord, "recordId">>(
  reader: EvidenceReader,
  record: T,
  contributing: readonly MappedSpan[],
  receiptSources: readonly Source[],
): T {
  const labels: Record<string, string> = {};
  const resources = contributing.map((mapped) => ({ span: mapped.span, attributes: mapped.span.resource }));
  for (const source of [...resources].reverse().concat(receiptSources.slice().reverse())) {
    for (const [name, value] of Object.entries(source.attributes)) {
      if (!name.startsWith(RECEIPT.labelPrefix)) continue;
      const key = name.slice(RECEIPT.labelPrefix.length);
      const text = stringAttr(source.attributes, name);
      if (LABEL_KEY_PATTERN.test(key) && text !== undefined && text.length <= MAX_LABEL_VALUE_LENGTH) {
        labels[key] = text;
      } else if (value !== undefined) {
        reader.report(source.span, PROBLEM_CODES.invalidAttribute, `${name} ignored: expected a label`);
      }
    }
  }
  const keys = Object.keys(labels).sort().slice(0, MAX_LABELS);
  if (keys.length === 0) return record;
  return { ...record, labels: Object.fromEntries(keys.map((key) => [key, labels[key] as string])) };
}

/**
 * recordId: a hash of the record's content, so the same spans give the same id (a duplicate, not a record). The
 * record is built field by field in a fixed order, so its JSON is already canonical.
 */
function withIdentity(
  record: Omit<HealthRecord, "recordId">,
  catalog: HealthRecord["catalog"],
): HealthRecord {
  const content = catalog === undefined ? record : { ...record, catalog };
  const recordId = `otlp:${contentHash(JSON.stringify(content))}`;
  const { schemaVersion, chainId, observedAt, labels, session, call, observed } = content as HealthRecord;
  const ordered: HealthRecord = { schemaVersion, recordId, chainId, observedAt, session };
  if (labels !== undefined) ordered.labels = labels;
  if (catalog !== undefined) ordered.catalog = catalog;
  if (call !== undefined) ordered.call = call;
  if (observed != null) ordered.observed = observed;
  return ordered;
}

/** One span per trace id and span id; among copies that differ, the same one whatever the input order. */
function uniqueSpans(spans: OtlpSpan[]): OtlpSpan[] {
  const chosen = new Map<string, { span: OtlpSpan; json: string | undefined }>();
  for (const span of spans) {
    const id = `${span.traceId}/${span.spanId}`;
    const held = chosen.get(id);
    if (held === undefined) {
      chosen.set(id, { span, json: undefined });
      continue;
    }
    held.json ??= canonicalize(held.span) ?? "";
    const json = canonicalize(span) ?? "";
    if (json < held.json) chosen.set(id, { span, json });
  }
  return [...chosen.entries()].sort(([a], [b]) => compare(a, b)).map(([, held]) => held.span);
}

function uniqueProblems(problems: MappingProblem[]): MappingProblem[] {
  const seen = new Map<string, MappingProblem>();
  for (const problem of problems) {
    seen.set(`${problem.traceId}/${problem.spanId}/${problem.code}/${problem.message}`, problem);
  }
  return [...seen.entries()].sort(([a], [b]) => compare(a, b)).map(([, problem]) => problem);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
