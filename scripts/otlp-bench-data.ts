/** The OTLP side of `bench:otlp`: sessions of MCP client spans as exporters send them, and their native twins. */
import { SpanKind } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { buildRecords, redactSpan, sessionKeyOf } from "../lib/otlp";
import type { OtlpSpan } from "../lib/otlp/span";
import { normaliseExport } from "../lib/server/otlp/normalise-spans";
import { decodeExportRequest } from "../lib/server/otlp/otlp-proto";
import { MAX_EXPORT_BYTES } from "../lib/server/otlp/read-export";
import { IN_FLIGHT } from "./ingest-bench-support";

export const CALLS_PER_SESSION = 4;
export const SESSIONS_PER_EXPORT = 25;
const T0_MS = Date.parse("2026-11-30T10:00:00.000Z");

/** Export bodies (protobuf), one list per collector: each collector sends its own sessions, one export after another. */
export function makeExports(prefix: string, chains: number): Buffer[][] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("bench-mcp-instrumentation", "1.0.0");
  const streams: Buffer[][] = Array.from({ length: IN_FLIGHT }, () => []);
  const sessions = chains / CALLS_PER_SESSION;
  for (let first = 0; first < sessions; first += SESSIONS_PER_EXPORT) {
    for (let s = first; s < Math.min(first + SESSIONS_PER_EXPORT, sessions); s++) {
      const session = `${prefix}-${s}`;
      const span = (name: string, method: string, at: number, extra: Record<string, string> = {}) =>
        tracer
          .startSpan(name, {
            kind: SpanKind.CLIENT,
            startTime: new Date(T0_MS + at),
            attributes: {
              "mcp.method.name": method,
              "mcp.session.id": session,
              "mcp.protocol.version": "2025-06-18",
              "network.transport": "tcp",
              "gen_ai.tool.call.arguments": '{"text":"hello"}',
              ...extra,
            },
          })
          .end(new Date(T0_MS + at + 50));
      span("initialize", "initialize", 0);
      for (let c = 0; c < CALLS_PER_SESSION; c++) {
        span("tools/call echo", "tools/call", 1000 * (c + 1), {
          "gen_ai.tool.name": "echo",
          "gen_ai.operation.name": "execute_tool",
          "jsonrpc.request.id": String(c + 1),
        });
      }
    }
    const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans()) ?? []);
    exporter.reset();
    streams[(first / SESSIONS_PER_EXPORT) % IN_FLIGHT]?.push(body);
  }
  return streams;
}

/** The native twin of an export: the records the server builds from it, as a POST /api/v1/records body. */
export function nativeTwin(body: Buffer): { json: string; records: number } {
  const bySession = new Map<string, OtlpSpan[]>();
  for (const span of normaliseExport(decodeExportRequest(body)).spans.map(redactSpan)) {
    const key = sessionKeyOf(span);
    bySession.set(key, [...(bySession.get(key) ?? []), span]);
  }
  const records = [...bySession.values()].flatMap((spans) => buildRecords(spans).records);
  return { json: JSON.stringify({ records }), records: records.length };
}

/**
 * `exports` export bodies of `spans` spans each, all to one `mcp.session.id`: the first opens the session
 * (initialize, tools/list), every span after it is a tools/call of its own trace, later in time than the last.
 */
export function makeSessionGrowth(session: string, exports: number, spans: number): Buffer[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("bench-mcp-instrumentation", "1.0.0");
  const bodies: Buffer[] = [];
  let at = 0;
  const span = (name: string, method: string, extra: Record<string, string> = {}) => {
    at += 100;
    tracer
      .startSpan(name, {
        kind: SpanKind.CLIENT,
        startTime: new Date(T0_MS + at),
        attributes: {
          "mcp.method.name": method,
          "mcp.session.id": session,
          "mcp.protocol.version": "2025-06-18",
          "network.transport": "tcp",
          ...extra,
        },
      })
      .end(new Date(T0_MS + at + 50));
  };
  for (let e = 0; e < exports; e++) {
    const first = e === 0 ? 2 : 0;
    if (e === 0) {
      span("initialize", "initialize");
      span("tools/list", "tools/list");
    }
    for (let c = first; c < spans; c++) {
      span("tools/call echo", "tools/call", {
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
        "jsonrpc.request.id": String(e * spans + c),
      });
    }
    bodies.push(Buffer.from(ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans()) ?? []));
    exporter.reset();
  }
  return bodies;
}

/**
 * One export as close under the 5 MiB limit as whole sessions get it (`MAX_EXPORT_BYTES`), in either encoding: sessions
 * of an initialize and four tools/call spans named `prefix`-n, so each body stores new chains.
 */
export function makeMaxSizeExport(
  prefix: string,
  encoding: "json" | "protobuf",
): { body: Buffer; spans: number } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("bench-mcp-instrumentation", "1.0.0");
  const serializer = encoding === "json" ? JsonTraceSerializer : ProtobufTraceSerializer;
  const serialize = (sessions: number) => {
    exporter.reset();
    for (let s = 0; s < sessions; s++) {
      const attributes = {
        "mcp.session.id": `${prefix}-${s}`,
        "mcp.protocol.version": "2025-06-18",
        "network.transport": "tcp",
      };
      const span = (name: string, extra: Record<string, string>, at: number) =>
        tracer
          .startSpan(name, {
            kind: SpanKind.CLIENT,
            startTime: new Date(T0_MS + at),
            attributes: { ...attributes, ...extra },
          })
          .end(new Date(T0_MS + at + 50));
      span("initialize", { "mcp.method.name": "initialize" }, 0);
      for (let c = 1; c <= CALLS_PER_SESSION; c++) {
        span(
          "tools/call echo",
          {
            "mcp.method.name": "tools/call",
            "gen_ai.tool.name": "echo",
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.call.arguments": '{"text":"hello"}',
            "jsonrpc.request.id": String(c),
          },
          1000 * c,
        );
      }
    }
    return Buffer.from(serializer.serializeRequest(exporter.getFinishedSpans()) ?? []);
  };
  const sample = serialize(20).length / 20;
  let sessions = Math.floor((MAX_EXPORT_BYTES * 0.995) / sample);
  let body = serialize(sessions);
  while (body.length > MAX_EXPORT_BYTES) body = serialize(--sessions);
  return { body, spans: sessions * (CALLS_PER_SESSION + 1) };
}
