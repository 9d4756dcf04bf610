import { KNOWN_METHODS, METHODS, SEMCONV, TRACELOOP } from "./attribute-names";
import type { OtlpAttributes, OtlpSpan } from "./span";

export function stringAttr(attributes: OtlpAttributes, key: string): string | undefined {
  const value = attributes[key];
  return typeof value === "string" ? value : undefined;
}

/** An integer, sent as an int or as a decimal string (`rpc.response.status_code` and `error.type` are strings). */
export function intAttr(attributes: OtlpAttributes, key: string): number | undefined {
  const value = attributes[key];
  if (typeof value === "number") return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === "string" && /^-?\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

export function numberAttr(attributes: OtlpAttributes, key: string): number | undefined {
  const value = attributes[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function boolAttr(attributes: OtlpAttributes, key: string): boolean | undefined {
  const value = attributes[key];
  return typeof value === "boolean" ? value : undefined;
}

/** A string array attribute; a single string counts as a one-element array. */
export function stringsAttr(attributes: OtlpAttributes, key: string): string[] | undefined {
  const value = attributes[key];
  if (typeof value === "string") return [value];
  if (!Array.isArray(value)) return undefined;
  return value.every((item) => typeof item === "string") ? (value as string[]) : undefined;
}

/** A JSON-RPC id or progress token: a string, or an integer. */
export function idAttr(attributes: OtlpAttributes, key: string): string | number | undefined {
  const value = attributes[key];
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  return undefined;
}

const NANOS_PER_MS = BigInt(1_000_000);

/** Unix nanoseconds (a decimal string) as epoch milliseconds, truncated; `undefined` when not a time. */
export function nanosToMs(nanos: string): number | undefined {
  if (!/^\d{1,25}$/.test(nanos)) return undefined;
  const ms = Number(BigInt(nanos) / NANOS_PER_MS);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** When the span ended, or `undefined` for a span with no end ("0"). */
export function endMs(span: OtlpSpan): number | undefined {
  return span.endTimeUnixNano === "0" ? undefined : nanosToMs(span.endTimeUnixNano);
}

/** Which dialect named the span's method: the conventions' attribute, traceloop's span name, or the name alone. */
export type MethodSource = "semconv" | "traceloop" | "name";
export type SpanMethod = { method: string; tool?: string; source: MethodSource };

/**
 * The MCP method a span describes, and the tool of a tools/call: `mcp.method.name` and `gen_ai.tool.name` (the
 * conventions); traceloop's `{method}.mcp` and `{tool}.tool` names; or a conventions-style span name
 * `{method} {target}` whose method is a known MCP method. `undefined`: not an MCP span.
 */
export function methodOf(span: OtlpSpan): SpanMethod | undefined {
  const { attributes, name } = span;
  const semconv = stringAttr(attributes, SEMCONV.methodName);
  if (semconv !== undefined) {
    const tool = stringAttr(attributes, SEMCONV.toolName) ?? targetOf(name, semconv);
    return withTool({ method: semconv, source: "semconv" }, tool);
  }
  if (stringAttr(attributes, TRACELOOP.spanKind) === TRACELOOP.toolKind) {
    const fromName = name.endsWith(TRACELOOP.toolSuffix) ? name.slice(0, -TRACELOOP.toolSuffix.length) : "";
    const tool = stringAttr(attributes, TRACELOOP.entityName) ?? fromName;
    return withTool({ method: METHODS.toolsCall, source: "traceloop" }, tool);
  }
  if (name.endsWith(TRACELOOP.methodSuffix)) {
    const method = name.slice(0, -TRACELOOP.methodSuffix.length);
    if (KNOWN_METHODS.has(method)) return { method, source: "traceloop" };
  }
  const [first = "", ...rest] = name.split(" ");
  if (!KNOWN_METHODS.has(first)) return undefined;
  return withTool({ method: first, source: "name" }, rest.join(" "));
}

function withTool(found: SpanMethod, tool: string | undefined): SpanMethod {
  return found.method === METHODS.toolsCall && tool ? { ...found, tool } : found;
}

/** `tools/call get-weather` → `get-weather` (the conventions' span name `{method} {target}`). */
function targetOf(name: string, method: string): string | undefined {
  return name.startsWith(`${method} `) ? name.slice(method.length + 1) : undefined;
}

/**
 * A request the client sent (client span, or a span without a kind). A server instrumented in the same trace
 * reports the same call as a server span, which is not a second chain.
 */
export function isClientRequest(span: OtlpSpan): boolean {
  return span.kind === "client" || span.kind === "unspecified" || span.kind === "internal";
}
