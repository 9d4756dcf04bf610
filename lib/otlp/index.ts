// STAND-IN, REPLACED BY THE MAPPING BRANCH. A crude private stand-in of the mapping (redactSpan, sessionKeyOf,
// buildRecords, signatures as in the issue-18 interface) so the endpoint can be tested end to end before the real
// mapping is merged. It maps only the few attributes the endpoint's own tests use; do not build on it.
import { sha256Hex } from "@/lib/contract/sha256";
import type { OtlpAttributes, OtlpSpan } from "./span";

export type * from "./span";

const KEPT_ATTRIBUTES = new Set([
  "mcp.method.name",
  "mcp.session.id",
  "mcp.protocol.version",
  "gen_ai.operation.name",
  "gen_ai.tool.name",
  "jsonrpc.request.id",
  "rpc.response.status_code",
  "error.type",
  "network.transport",
]);
const KEPT_RESOURCE = new Set(["service.name", "service.version", "telemetry.sdk.language"]);

function keep(attributes: OtlpAttributes, names: Set<string>): OtlpAttributes {
  return Object.fromEntries(Object.entries(attributes).filter(([key]) => names.has(key)));
}

export function redactSpan(span: OtlpSpan): OtlpSpan {
  const { message: _dropped, ...status } = span.status;
  return {
    ...span,
    status,
    attributes: keep(span.attributes, KEPT_ATTRIBUTES),
    events: [],
    resource: keep(span.resource, KEPT_RESOURCE),
  };
}

export function sessionKeyOf(span: OtlpSpan): string {
  const session = span.attributes["mcp.session.id"];
  return typeof session === "string" ? `session:${session}` : `trace:${span.traceId}`;
}

type Problem = { spanId: string; traceId: string; code: string; message: string };

export function buildRecords(spans: OtlpSpan[]): { records: unknown[]; problems: Problem[] } {
  const records: unknown[] = [];
  const problems: Problem[] = [];
  const sorted = [...spans].sort((a, b) => compareIds(a, b));
  const sessionHash = sha256Hex(JSON.stringify(sorted)).slice(0, 40);
  const observedNs = sorted.reduce(
    (max, span) => maxNs(max, span.startTimeUnixNano, span.endTimeUnixNano),
    0n,
  );
  for (const span of sorted) {
    if (span.attributes["mcp.method.name"] !== "tools/call" || span.kind !== "client") continue;
    if (span.startTimeUnixNano === "0") {
      problems.push({
        ...ids(span),
        code: "missing_start_time",
        message: "a tools/call span needs a start time",
      });
      continue;
    }
    records.push(recordOf(span, sessionHash, observedNs));
  }
  return { records, problems };
}

function recordOf(span: OtlpSpan, sessionHash: string, observedNs: bigint) {
  const text = (value: unknown, fallback: string) => (typeof value === "string" ? value : fallback);
  const a = span.attributes;
  const ended = span.endTimeUnixNano !== "0";
  const toolError = a["error.type"] === "tool_error";
  const version = text(a["mcp.protocol.version"], "2025-06-18");
  return {
    schemaVersion: 1,
    recordId: `otlp:${sessionHash}:${span.spanId}`,
    chainId: `otlp:${span.traceId}:${span.spanId}`,
    observedAt: isoOf(observedNs),
    session: {
      id: text(a["mcp.session.id"], `otlp:${span.traceId}`),
      client: {
        name: text(span.resource["service.name"], "unknown"),
        version: text(span.resource["service.version"], "unknown"),
      },
      transport: a["network.transport"] === "pipe" ? "stdio" : "other",
      protocol: { era: "legacy", requestedVersion: version, clientSupportedVersions: [version] },
      capabilities: { server: [], client: [], required: { server: [], client: [] } },
    },
    call: {
      requestId: text(a["jsonrpc.request.id"], span.spanId),
      tool: text(a["gen_ai.tool.name"], span.name),
      sideEffect: "unknown",
      startedAt: isoOf(BigInt(span.startTimeUnixNano)),
      deadlineMs: 60_000,
      inactivityMs: 60_000,
      progress: [],
      ...(ended && {
        response:
          span.status.code === "error" && !toolError
            ? {
                at: isoOf(BigInt(span.endTimeUnixNano)),
                kind: "error",
                error: { code: -32603, class: "internal" },
              }
            : { at: isoOf(BigInt(span.endTimeUnixNano)), kind: "result", isError: toolError },
      }),
    },
  };
}

const ids = (span: OtlpSpan) => ({ spanId: span.spanId, traceId: span.traceId });
const compareIds = (a: OtlpSpan, b: OtlpSpan) =>
  a.traceId + a.spanId < b.traceId + b.spanId ? -1 : a.traceId + a.spanId > b.traceId + b.spanId ? 1 : 0;
const maxNs = (max: bigint, ...times: string[]) =>
  times.reduce((m, time) => (BigInt(time) > m ? BigInt(time) : m), max);
const isoOf = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();
