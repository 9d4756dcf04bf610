/**
 * OTLP request bodies for tests, made the way exporters make them: spans from the OpenTelemetry SDK
 * (`@opentelemetry/sdk-trace-base`), serialised by `@opentelemetry/otlp-transformer` (what the OTLP exporters call).
 * Attributes follow the MCP semantic conventions; ids can be fixed to produce duplicates and conflicts.
 */
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import protobuf from "protobufjs";

export const T0_MS = Date.parse("2026-11-30T10:00:00.000Z");

export type SpanSpec = {
  method: "tools/call" | "initialize" | "tools/list" | "resources/list";
  session: string;
  tool?: string;
  /** The span's name, when not `{method} {tool}` (the conventions' name, which a tool-less span's target comes from). */
  name?: string;
  traceId?: string;
  spanId?: string;
  startMs?: number;
  durationMs?: number;
  /** Extra attributes, e.g. the tool's arguments, which redaction must drop. */
  attributes?: Record<string, string | number | boolean>;
  error?: boolean;
};

export const newTraceId = () => randomBytes(16).toString("hex");
export const newSpanId = () => randomBytes(8).toString("hex");

/** One finished client span of an MCP request, as an instrumented MCP client would record it. */
export function mcpSpan(spec: SpanSpec): ReadableSpan {
  const traceId = spec.traceId ?? newTraceId();
  const spanId = spec.spanId ?? newSpanId();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    idGenerator: { generateTraceId: () => traceId, generateSpanId: () => spanId },
  });
  const start = T0_MS + (spec.startMs ?? 0);
  const name = spec.name ?? (spec.tool ? `${spec.method} ${spec.tool}` : spec.method);
  const span = provider.getTracer("mcp-test-instrumentation", "1.0.0").startSpan(name, {
    kind: SpanKind.CLIENT,
    startTime: new Date(start),
    attributes: {
      "mcp.method.name": spec.method,
      "mcp.session.id": spec.session,
      "mcp.protocol.version": "2025-06-18",
      "jsonrpc.request.id": spanId,
      "network.transport": "tcp",
      ...(spec.tool && { "gen_ai.tool.name": spec.tool, "gen_ai.operation.name": "execute_tool" }),
      ...spec.attributes,
    },
  });
  if (spec.error) span.setStatus({ code: SpanStatusCode.ERROR, message: "tool failed: secret detail" });
  span.end(new Date(start + (spec.durationMs ?? 100)));
  return exporter.getFinishedSpans()[0] as ReadableSpan;
}

export const protobufBody = (spans: ReadableSpan[]) =>
  Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) ?? []);
export const jsonBody = (spans: ReadableSpan[]) =>
  Buffer.from(JsonTraceSerializer.serializeRequest(spans) ?? []);
export const gzip = (body: Buffer) => gzipSync(body);

/** The protobuf ExportTraceServiceResponse of a 200, read with the transformer's own deserializer. */
export function readProtobufResponse(bytes: Uint8Array) {
  return ProtobufTraceSerializer.deserializeResponse(bytes);
}

const Status = new protobuf.Type("Status")
  .add(new protobuf.Field("code", 1, "int32"))
  .add(new protobuf.Field("message", 2, "string"));
new protobuf.Root().define("google.rpc").add(Status);

/** A google.rpc.Status error body in protobuf. */
export function readStatus(bytes: Uint8Array): { code: number; message: string } {
  return Status.toObject(Status.decode(bytes), { defaults: true }) as { code: number; message: string };
}

/** POSTs a body to /v1/traces. */
export function postTraces(
  baseUrl: string,
  key: string | undefined,
  body: Buffer,
  headers: Record<string, string> = { "content-type": "application/x-protobuf" },
) {
  return fetch(`${baseUrl}/v1/traces`, {
    method: "POST",
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: new Uint8Array(body),
  });
}
