/**
 * Normalised OTLP spans (lib/otlp/span.ts) as the instrumentations emit them: the OpenTelemetry MCP semantic
 * conventions, and @traceloop/instrumentation-mcp's names and attributes (read from its dist/). Times are
 * milliseconds after T0 for readability.
 */
import type { OtlpAttributes, OtlpEvent, OtlpSpan, OtlpSpanKind, OtlpStatusCode } from "@/lib/otlp";

export const T0_MS = Date.parse("2026-11-30T10:00:00.000Z");
export const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
export const OTHER_TRACE = "0af7651916cd43dd8448eb211c80319c";

export function nanos(msAfterT0: number): string {
  return (BigInt(T0_MS + msAfterT0) * BigInt(1_000_000)).toString();
}

export function iso(msAfterT0: number): string {
  return new Date(T0_MS + msAfterT0).toISOString();
}

let counter = 0;
/** A fresh 16-hex span id (deterministic per test file run order is not needed: ids only need to differ). */
export function spanId(): string {
  counter += 1;
  return counter.toString(16).padStart(16, "0");
}

export type SpanOptions = {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name: string;
  kind?: OtlpSpanKind;
  start: number;
  end?: number | null;
  status?: OtlpStatusCode;
  statusMessage?: string;
  attributes?: OtlpAttributes;
  events?: { name: string; at: number; attributes?: OtlpAttributes }[];
  resource?: OtlpAttributes;
  scope?: string;
};

export function span(options: SpanOptions): OtlpSpan {
  const built: OtlpSpan = {
    traceId: options.traceId ?? TRACE,
    spanId: options.spanId ?? spanId(),
    name: options.name,
    kind: options.kind ?? "client",
    startTimeUnixNano: nanos(options.start),
    endTimeUnixNano: options.end === null ? "0" : nanos(options.end ?? options.start + 10),
    status: { code: options.status ?? "unset" },
    attributes: options.attributes ?? {},
    events: (options.events ?? []).map(
      (event): OtlpEvent => ({
        name: event.name,
        timeUnixNano: nanos(event.at),
        attributes: event.attributes ?? {},
      }),
    ),
    resource: options.resource ?? { "service.name": "weather-agent", "service.version": "1.4.0" },
    scope: { name: options.scope ?? "mcp-semconv-instrumentation", version: "1.0.0" },
  };
  if (options.parentSpanId !== undefined) built.parentSpanId = options.parentSpanId;
  if (options.statusMessage !== undefined) built.status.message = options.statusMessage;
  return built;
}

type Common = { traceId?: string; sessionId?: string; version?: string; transport?: string };

function common(options: Common, method: string): OtlpAttributes {
  const attributes: OtlpAttributes = {
    "mcp.method.name": method,
    "mcp.protocol.version": options.version ?? "2025-06-18",
    "network.transport": options.transport ?? "pipe",
  };
  if (options.sessionId !== undefined) attributes["mcp.session.id"] = options.sessionId;
  return attributes;
}

/** initialize (t 0–20), notifications/initialized (t 21), tools/list (t 30–40): a legacy session's spans. */
export function semconvSession(options: Common & { listAttributes?: OtlpAttributes } = {}): OtlpSpan[] {
  const traceId = options.traceId ?? TRACE;
  return [
    span({
      traceId,
      name: "initialize",
      start: 0,
      end: 20,
      attributes: { ...common(options, "initialize"), "jsonrpc.request.id": "0" },
    }),
    span({
      traceId,
      name: "notifications/initialized",
      start: 21,
      end: 22,
      attributes: common(options, "notifications/initialized"),
    }),
    span({
      traceId,
      name: "tools/list",
      start: 30,
      end: 40,
      attributes: { ...common(options, "tools/list"), "jsonrpc.request.id": "1", ...options.listAttributes },
    }),
  ];
}

export type CallOptions = Common & {
  tool?: string;
  start?: number;
  end?: number | null;
  status?: OtlpStatusCode;
  attributes?: OtlpAttributes;
  events?: SpanOptions["events"];
  spanId?: string;
  parentSpanId?: string;
};

/** A conventions tools/call client span (t 100–150 unless told). */
export function semconvCall(options: CallOptions = {}): OtlpSpan {
  const tool = options.tool ?? "get-weather";
  const built: SpanOptions = {
    traceId: options.traceId ?? TRACE,
    name: `tools/call ${tool}`,
    start: options.start ?? 100,
    end: options.end === undefined ? 150 : options.end,
    status: options.status ?? "unset",
    attributes: {
      ...common(options, "tools/call"),
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool,
      "jsonrpc.request.id": "2",
      ...options.attributes,
    },
    events: options.events ?? [],
  };
  if (options.spanId !== undefined) built.spanId = options.spanId;
  if (options.parentSpanId !== undefined) built.parentSpanId = options.parentSpanId;
  return span(built);
}

/** Every receipt.* a fully receipted write carries: healthy with strong evidence. */
export const FULL_RECEIPT: OtlpAttributes = {
  "receipt.call.side_effect": "write",
  "receipt.call.operation_key": "op:weather-report-42",
  "receipt.call.expected_verifier": "db_row",
  "receipt.call.deadline_ms": 30_000,
  "receipt.call.inactivity_ms": 10_000,
  "receipt.server.name": "weather-mcp",
  "receipt.server.version": "2.3.1",
  "receipt.capabilities.server": ["tools", "tools.listChanged"],
  "receipt.capabilities.required_server": ["tools"],
};

export const PASSING_OUTCOME: NonNullable<SpanOptions["events"]> = [
  {
    name: "receipt.effect",
    at: 160,
    attributes: { "receipt.effect.status": "committed", "receipt.effect.receipt": "reports/42@v3" },
  },
  {
    name: "receipt.outcome",
    at: 170,
    attributes: {
      "receipt.outcome.verifier": "db_row",
      "receipt.outcome.verdict": "pass",
      "receipt.outcome.receipt": "row 42 v3",
    },
  },
];

const TRACELOOP_SCOPE = "@traceloop/instrumentation-mcp";

/**
 * What @traceloop/instrumentation-mcp 0.27 emits for connect → listTools → callTool: a `mcp.client.session`
 * span, `initialize.mcp` and `tools/list.mcp` children with their params and results as JSON in
 * traceloop.entity.input/output, and a `{tool}.tool` span with traceloop.span.kind/entity.name.
 */
export function traceloopSession(options: { tools?: string[] } = {}): {
  session: OtlpSpan;
  spans: OtlpSpan[];
} {
  const session = span({
    name: "mcp.client.session",
    start: 0,
    end: 500,
    status: "ok",
    scope: TRACELOOP_SCOPE,
    attributes: { "traceloop.span.kind": "session", "traceloop.entity.name": "mcp.client.session" },
  });
  const child = (name: string, start: number, end: number, attributes: OtlpAttributes) =>
    span({
      name,
      start,
      end,
      status: "ok",
      parentSpanId: session.spanId,
      scope: TRACELOOP_SCOPE,
      attributes,
    });
  const initialize = child("initialize.mcp", 1, 20, {
    "traceloop.entity.input": JSON.stringify({
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "weather-agent", version: "1.4.0" },
    }),
    "traceloop.entity.output": JSON.stringify({
      protocolVersion: "2025-11-25",
      capabilities: { tools: { listChanged: true }, logging: {} },
      serverInfo: { name: "mcp-servers/everything", version: "2.0.0" },
    }),
  });
  const tools = (options.tools ?? ["echo", "get-weather"]).map((name) => ({
    name,
    description: `the ${name} tool`,
  }));
  const list = child("tools/list.mcp", 30, 40, { "traceloop.entity.output": JSON.stringify({ tools }) });
  return { session, spans: [session, initialize, list] };
}

export function traceloopCall(
  session: OtlpSpan,
  options: {
    tool?: string;
    status?: OtlpStatusCode;
    events?: SpanOptions["events"];
    arguments?: unknown;
  } = {},
): OtlpSpan {
  const tool = options.tool ?? "get-weather";
  return span({
    name: `${tool}.tool`,
    start: 100,
    end: 150,
    status: options.status ?? "ok",
    parentSpanId: session.spanId,
    scope: TRACELOOP_SCOPE,
    attributes: {
      "traceloop.span.kind": "tool",
      "traceloop.entity.name": tool,
      "traceloop.entity.input": JSON.stringify({
        tool_name: tool,
        arguments: options.arguments ?? { city: "Paris" },
      }),
      "traceloop.entity.output": JSON.stringify({ result: "Sunny, 21°C", is_error: false }),
    },
    events: options.events ?? [],
  });
}
