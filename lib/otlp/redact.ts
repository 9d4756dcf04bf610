import {
  EXCEPTION,
  OTHER_ERROR,
  RECEIPT,
  RECEIPT_EVENT_ATTRIBUTES,
  RESOURCE,
  SEMCONV,
  TOOL_ERROR,
  TRACELOOP,
} from "./attribute-names";
import { looksLikeSecret } from "../contract/redaction";
import { isStorableString } from "../contract/storable";
import { hashSessionId, hashToolName } from "./hashing";
import type { OtlpAttributes, OtlpEvent, OtlpSpan, OtlpValue } from "./span";
import { methodOf, stringAttr, stringsAttr } from "./span-values";
import { evidenceFromTraceloopContent } from "./traceloop-content";

/** Conventions' attributes kept as sent (the two that are not are handled below). */
const KEPT_SEMCONV: ReadonlySet<string> = new Set(
  Object.values(SEMCONV).filter((key) => key !== SEMCONV.sessionId && key !== SEMCONV.errorType),
);
/** Every `receipt.*` attribute name except the plain tool names, which become hashes. */
const KEPT_RECEIPT: ReadonlySet<string> = new Set(
  Object.values(RECEIPT).filter((key) => key !== RECEIPT.catalogToolNames && key !== RECEIPT.labelPrefix),
);
/** The longest string value kept: anything longer is content, not evidence. */
const MAX_KEPT_STRING = 512;
/** `MCP error -32602: …` — the TypeScript SDK's McpError message; only the code is kept. */
const MCP_ERROR_MESSAGE = /^MCP error (-?\d{1,9})\b/;
const NUMERIC_CODE = /^-?\d{1,9}$/;

/**
 * Drops every attribute, event and resource attribute the mapping does not name — tool arguments and results,
 * prompts, message contents, traceloop's entity input/output, OpenInference's input.value/output.value, anything
 * unknown — and the status message. Three values are kept in a reduced form: `mcp.session.id` as its SHA-256,
 * `error.type` as a JSON-RPC code, `tool_error` or `_OTHER`, and exception events as their JSON-RPC code (from
 * the SDK's "MCP error <code>" message) and whether they were an abort. Pure; idempotent.
 */
export function redactSpan(span: OtlpSpan): OtlpSpan {
  const found = methodOf(span);
  const attributes = keptSpanAttributes(span.attributes);
  if (found?.source === "traceloop")
    Object.assign(attributes, evidenceFromTraceloopContent(found.method, span.attributes));
  const resource = keptResource(span.resource);
  const own = maskFields(attributes);
  const ofResource = maskFields(resource);
  const masked = [...own.masked, ...ofResource.masked, ...listedBefore(attributes, RECEIPT.masked)];
  const truncated = [
    ...own.truncated,
    ...ofResource.truncated,
    ...listedBefore(attributes, RECEIPT.truncated),
  ];
  delete attributes[RECEIPT.masked];
  delete attributes[RECEIPT.truncated];
  // A span that is neither MCP nor receipt (an HTTP span under a call) keeps only how it failed, and no name:
  // only MCP spans' names are low-cardinality by rule.
  const read = found !== undefined || Object.keys(attributes).some(isReceiptKey);
  const kept = read ? attributes : failureOnly(attributes);
  if (masked.length > 0) kept[RECEIPT.masked] = [...new Set(masked)].sort();
  if (truncated.length > 0) kept[RECEIPT.truncated] = [...new Set(truncated)].sort();
  const redacted: OtlpSpan = {
    traceId: span.traceId,
    spanId: span.spanId,
    name: read ? span.name : "",
    kind: span.kind,
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano: span.endTimeUnixNano,
    status: { code: span.status.code },
    attributes: sortKeys(kept),
    events: span.events.map(keptEvent).filter((event): event is OtlpEvent => event !== undefined),
    resource: sortKeys(resource),
    scope: span.scope.version === undefined ? { name: span.scope.name } : { ...span.scope },
  };
  if (span.parentSpanId !== undefined) redacted.parentSpanId = span.parentSpanId;
  return redacted;
}

function keptSpanAttributes(source: OtlpAttributes): OtlpAttributes {
  const kept: OtlpAttributes = {};
  for (const [key, value] of Object.entries(source)) {
    if (KEPT_SEMCONV.has(key) || isReceiptKey(key)) {
      if (isKeptValue(value) || isPeerText(key, value)) kept[key] = value;
    }
  }
  const sessionId = stringAttr(source, SEMCONV.sessionId);
  if (sessionId !== undefined) kept[SEMCONV.sessionId] = hashSessionId(sessionId);
  const errorType = source[SEMCONV.errorType];
  if (errorType !== undefined) kept[SEMCONV.errorType] = reducedErrorType(errorType);
  const toolNames = stringsAttr(source, RECEIPT.catalogToolNames);
  if (toolNames !== undefined && kept[RECEIPT.catalogToolNameHashes] === undefined) {
    kept[RECEIPT.catalogToolNameHashes] = toolNames.map(hashToolName);
  }
  const traceloopKind = stringAttr(source, TRACELOOP.spanKind);
  if (traceloopKind === TRACELOOP.toolKind) {
    kept[TRACELOOP.spanKind] = traceloopKind;
    const tool = stringAttr(source, TRACELOOP.entityName);
    if (tool !== undefined && tool.length <= MAX_KEPT_STRING) kept[TRACELOOP.entityName] = tool;
  }
  return kept;
}

/**
 * Who the peers are is free text an SDK fills from its own config, and so is a protocol version: a token pasted in
 * as a version, or a NUL, must cost that one value, not the span (a span with a credential-like or unstorable kept
 * value is refused whole, and a refused initialize span loses its session's handshake). Drops such a value and
 * names what it dropped; a peer's name or version past the record's length is cut to it (never inside a surrogate
 * pair) and named too, where before it was ignored, or dropped unsaid past 512 characters.
 */
const MASKED_FIELDS: readonly string[] = [
  RECEIPT.clientName,
  RECEIPT.clientVersion,
  RECEIPT.serverName,
  RECEIPT.serverVersion,
  RESOURCE.serviceName,
  RESOURCE.serviceVersion,
  SEMCONV.serverAddress,
  SEMCONV.protocolVersion,
  RECEIPT.requestedVersion,
  RECEIPT.acceptedVersion,
  RECEIPT.clientSupportedVersions,
  RECEIPT.serverSupportedVersions,
];
/** The record's length for each peer field (contract §1: names 128, versions 64; an address becomes a name). */
const PEER_LENGTHS: Readonly<Record<string, number>> = {
  [RECEIPT.clientName]: 128,
  [RECEIPT.clientVersion]: 64,
  [RECEIPT.serverName]: 128,
  [RECEIPT.serverVersion]: 64,
  [RESOURCE.serviceName]: 128,
  [RESOURCE.serviceVersion]: 64,
  [SEMCONV.serverAddress]: 128,
};
/** C0 and C1 control characters, NUL and DEL included. */
const CONTROL_CHARACTER = /\p{Cc}/u;

function maskFields(attributes: OtlpAttributes): { masked: string[]; truncated: string[] } {
  const masked: string[] = [];
  const truncated: string[] = [];
  for (const key of MASKED_FIELDS) {
    const value = attributes[key];
    // A list of versions is one field: one bad entry drops the list (the record takes no partial list).
    if (Array.isArray(value) && value.some((item) => typeof item === "string" && isBadText(item))) {
      delete attributes[key];
      masked.push(key);
      continue;
    }
    if (typeof value !== "string") continue;
    if (isBadText(value)) {
      delete attributes[key];
      masked.push(key);
      continue;
    }
    const max = PEER_LENGTHS[key];
    if (max !== undefined && value.length > max) {
      attributes[key] = clipText(value, max);
      truncated.push(key);
    }
  }
  return { masked, truncated };
}

/** A value no record may carry: it looks like a credential, or holds a control character or unpaired surrogate. */
function isBadText(value: string): boolean {
  return CONTROL_CHARACTER.test(value) || !isStorableString(value) || looksLikeSecret(value);
}

/** `text` cut to `max` UTF-16 code units, never leaving half of a surrogate pair at the end. */
function clipText(text: string, max: number): string {
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** What an earlier redaction masked or cut (the span as stored), so that redacting again keeps saying it. */
function listedBefore(attributes: OtlpAttributes, key: string): string[] {
  const list = stringsAttr(attributes, key) ?? [];
  return list.filter((name) => MASKED_FIELDS.includes(name));
}

function failureOnly(attributes: OtlpAttributes): OtlpAttributes {
  const kept: OtlpAttributes = {};
  for (const key of [SEMCONV.httpStatusCode, SEMCONV.errorType]) {
    const value = attributes[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
}

function isReceiptKey(key: string): boolean {
  return (
    KEPT_RECEIPT.has(key) || (key.startsWith(RECEIPT.labelPrefix) && key.length > RECEIPT.labelPrefix.length)
  );
}

/** A peer's name or version is kept whatever its length: `maskFields` cuts it to the record's. */
const isPeerText = (key: string, value: OtlpValue) => typeof value === "string" && key in PEER_LENGTHS;

function isKeptValue(value: OtlpValue): boolean {
  if (typeof value === "string") return value.length <= MAX_KEPT_STRING;
  if (Array.isArray(value)) return value.length <= 1024 && value.every((item) => isKeptValue(item));
  return true;
}

/** `error.type` is free text in general: only the values the mapping reads survive. */
function reducedErrorType(value: OtlpValue): string {
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text === "string" && (text === TOOL_ERROR || NUMERIC_CODE.test(text))) return text;
  return OTHER_ERROR;
}

function keptEvent(event: OtlpEvent): OtlpEvent | undefined {
  if (event.name === EXCEPTION.event) return reducedException(event);
  const names = RECEIPT_EVENT_ATTRIBUTES[event.name];
  if (names === undefined) return undefined;
  const attributes: OtlpAttributes = {};
  for (const name of names) {
    const value = event.attributes[name];
    if (value !== undefined && isKeptValue(value)) attributes[name] = value;
  }
  return { name: event.name, timeUnixNano: event.timeUnixNano, attributes };
}

function reducedException(event: OtlpEvent): OtlpEvent {
  const attributes: OtlpAttributes = {};
  const message = stringAttr(event.attributes, EXCEPTION.message);
  const type = stringAttr(event.attributes, EXCEPTION.type);
  // The SDK's McpError carries its code, which recordException records as the type ("-32001").
  const code =
    (message === undefined ? undefined : MCP_ERROR_MESSAGE.exec(message)?.[1]) ??
    (type !== undefined && NUMERIC_CODE.test(type) ? type : undefined);
  const keptCode = event.attributes[RECEIPT.exceptionCode];
  if (code !== undefined) attributes[RECEIPT.exceptionCode] = Number(code);
  else if (typeof keptCode === "number" && Number.isSafeInteger(keptCode)) {
    attributes[RECEIPT.exceptionCode] = keptCode;
  }
  if (type === "AbortError" || event.attributes[RECEIPT.exceptionAbort] === true) {
    attributes[RECEIPT.exceptionAbort] = true;
  }
  return { name: EXCEPTION.event, timeUnixNano: event.timeUnixNano, attributes };
}

function keptResource(resource: OtlpAttributes): OtlpAttributes {
  const kept: OtlpAttributes = {};
  for (const [key, value] of Object.entries(resource)) {
    const wanted =
      key === RESOURCE.serviceName ||
      key === RESOURCE.serviceVersion ||
      key === RECEIPT.clientName ||
      key === RECEIPT.clientVersion ||
      (key.startsWith(RECEIPT.labelPrefix) && key.length > RECEIPT.labelPrefix.length);
    if (wanted && (isKeptValue(value) || isPeerText(key, value))) kept[key] = value;
  }
  return kept;
}

/** Keys in code-unit order, so that equal spans serialise to equal JSON whatever order they were sent in. */
function sortKeys(attributes: OtlpAttributes): OtlpAttributes {
  const sorted: OtlpAttributes = {};
  for (const key of Object.keys(attributes).sort()) sorted[key] = attributes[key] as OtlpValue;
  return sorted;
}
