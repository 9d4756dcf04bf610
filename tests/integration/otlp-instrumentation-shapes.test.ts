import { describe, expect, it } from "vitest";
import type { SpanShape } from "@/tests/fixtures/otlp-agent/protocol";
import { AGENT_TEST_TIMEOUT, runAgent } from "@/tests/support/otlp-agent";

// What the MCP instrumentations really emit, captured in memory from the agent fixture against server-everything:
// the shapes docs/OTLP.md maps, pinned so that an upgrade of an instrumentation that changes them fails here.
// (The span values here DO carry the argument marker: otlp-instrumentations.test.ts proves Receipt drops them.)

const MARKER = "shape-marker-5d1c";
const CLIENT = 2; // SpanKind.CLIENT
const ERROR = 2; // SpanStatusCode.ERROR

const calls = [
  { tool: "echo", arguments: { message: MARKER } },
  { tool: "get-sum", arguments: { a: MARKER, b: 1 } },
  { tool: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 }, timeoutMs: 300 },
];

function byName(spans: SpanShape[] | undefined): Map<string, SpanShape> {
  const map = new Map<string, SpanShape>();
  for (const span of spans ?? []) map.set(span.name, span);
  return map;
}

describe("@traceloop/instrumentation-mcp 0.27 (+ @arizeai/openinference-instrumentation-mcp)", () => {
  it("one CLIENT span per request under a session span, traceloop.* attributes only, content included", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const report = await runAgent({
      endpoint: "http://127.0.0.1:9",
      key: "unused",
      exporter: "memory",
      transport: "stdio",
      instrumentation: "traceloop",
      runId: "shapes-traceloop",
      calls,
    });
    const spans = byName(report.spans);
    expect([...spans.keys()].sort()).toEqual([
      "agent.session",
      "echo.tool",
      "get-sum.tool",
      "initialize.mcp",
      "mcp.client.session",
      "tools/list.mcp",
      "trigger-long-running-operation.tool",
    ]);
    const mcpSpans = [...spans.values()].filter((s) => s.scope === "@traceloop/instrumentation-mcp");
    expect(mcpSpans).toHaveLength(6);
    for (const span of mcpSpans) {
      expect(span.kind, span.name).toBe(CLIENT);
      expect(span.parent, span.name).toBe(
        span.name === "mcp.client.session" ? "agent.session" : "mcp.client.session",
      );
      // None of the MCP semantic conventions' attributes.
      expect(
        Object.keys(span.attributes).filter((k) => /^(mcp|gen_ai|jsonrpc|rpc|network|server)\./.test(k)),
        span.name,
      ).toEqual([]);
    }
    const echo = spans.get("echo.tool");
    expect(echo?.attributes["traceloop.span.kind"]).toBe("tool");
    expect(echo?.attributes["traceloop.entity.name"]).toBe("echo");
    expect(String(echo?.attributes["traceloop.entity.input"])).toContain(MARKER);
    expect(String(echo?.attributes["traceloop.entity.output"])).toContain(MARKER);
    expect(echo?.status.code).toBe(1); // OK
    // An isError result: status ERROR whose message is the result's text, and no exception event.
    const sum = spans.get("get-sum.tool");
    expect(sum?.status.code).toBe(ERROR);
    expect(sum?.status.message).toMatch(/Input validation error/);
    expect(sum?.events).toEqual([]);
    expect(String(sum?.attributes["traceloop.entity.output"])).toContain('"is_error":true');
    // A thrown McpError: status ERROR and an exception event whose type is the JSON-RPC code.
    const slow = spans.get("trigger-long-running-operation.tool");
    expect(slow?.status.code).toBe(ERROR);
    expect(slow?.events.map((e) => [e.name, e.attributes["exception.type"]])).toEqual([
      ["exception", "-32001"],
    ]);
    // Arize puts each request's own Traceloop span into params._meta.traceparent.
    const initialize = spans.get("initialize.mcp");
    expect(report.wire?.map((w) => w.method)).toEqual([
      "initialize",
      "tools/list",
      "tools/call",
      "tools/call",
      "tools/call",
    ]);
    expect(report.wire?.[0]?.traceparent).toBe(`00-${initialize?.traceId}-${initialize?.spanId}-01`);
    expect(report.wire?.[2]?.traceparent).toBe(`00-${echo?.traceId}-${echo?.spanId}-01`);
  });
});

describe("the conventions tracer (tests/fixtures/otlp-agent)", () => {
  it("emits the MCP semantic conventions over Streamable HTTP, with mcp.session.id and _meta trace context", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const report = await runAgent({
      endpoint: "http://127.0.0.1:9",
      key: "unused",
      exporter: "memory",
      transport: "http",
      instrumentation: "conventions",
      runId: "shapes-conventions",
      calls: calls.slice(0, 2),
    });
    const spans = byName(report.spans);
    expect([...spans.keys()].sort()).toEqual([
      "agent.session",
      "initialize",
      "notifications/initialized",
      "tools/call echo",
      "tools/call get-sum",
      "tools/list",
    ]);
    expect(report.sessionId).toBeTruthy();
    for (const [name, span] of spans) {
      if (name === "agent.session") continue;
      expect(span.kind, name).toBe(CLIENT);
      expect(span.attributes["mcp.method.name"], name).toBe(name.split(" ")[0]);
      expect(span.attributes["mcp.session.id"], name).toBe(report.sessionId);
      expect(span.attributes["network.transport"], name).toBe("tcp");
      expect(span.attributes["server.address"], name).toBe("127.0.0.1");
    }
    expect(spans.get("initialize")?.attributes["mcp.protocol.version"]).toBe("2025-11-25");
    const echo = spans.get("tools/call echo");
    expect(echo?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "echo",
      "jsonrpc.request.id": "2",
    });
    expect(String(echo?.attributes["gen_ai.tool.call.arguments"])).toContain(MARKER);
    expect(spans.get("tools/call get-sum")?.attributes["error.type"]).toBe("tool_error");
    expect(report.wire?.find((w) => w.id === 2)?.traceparent).toBe(`00-${echo?.traceId}-${echo?.spanId}-01`);
  });
});
