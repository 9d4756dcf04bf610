import { randomBytes } from "node:crypto";
import type { ChainListItem } from "@/lib/dashboard/api-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createKeyWithCli, type RunningApp, startApp } from "@/tests/support/app-server";
import {
  AGENT_TEST_TIMEOUT,
  chainsOfRun,
  expectAcceptedExports,
  listChainsOfRun,
  requestVerdict,
  rowsContaining,
  runAgent,
} from "@/tests/support/otlp-agent";
import { createTestDatabase } from "@/tests/support/test-database";

// A real agent process — MCP SDK client, server-everything, an OpenTelemetry instrumentation from npm or the
// semantic conventions set by hand, the real OTLP exporters — reporting to a running Receipt at /v1/traces.
// Every assertion reads what Receipt stored and decided through its read API or its database.

const marker = `otlp-marker-${randomBytes(6).toString("hex")}`;
let db: { url: string; drop: () => Promise<void> };
let app: RunningApp;
let key: string;
let api: ReturnType<typeof apiClient>;
const runIds: string[] = [];
const runId = (name: string) => {
  const id = `otlp-${name}-${randomBytes(4).toString("hex")}`;
  runIds.push(id);
  return id;
};

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  key = createKeyWithCli(db.url, "otlp-e2e", ["ingest", "read"]);
  api = apiClient(app.baseUrl, key);
});

afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const agent = (config: Omit<Parameters<typeof runAgent>[0], "endpoint" | "key">) =>
  runAgent({ endpoint: app.baseUrl, key, ...config });

describe("off the shelf: @traceloop/instrumentation-mcp (+ Arize trace context)", () => {
  it("stdio, protobuf exporter: a plain success, an isError result and a client timeout", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = runId("traceloop-stdio");
    const report = await agent({
      exporter: "proto",
      transport: "stdio",
      instrumentation: "traceloop",
      runId: id,
      calls: [
        { tool: "echo", arguments: { message: marker } },
        { tool: "get-sum", arguments: { a: marker, b: 1 } },
        { tool: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 }, timeoutMs: 300 },
      ],
    });
    expect(report.calls.map((c) => c.kind)).toEqual(["result", "isError", "thrown"]);
    expectAcceptedExports(report);

    const chains = await chainsOfRun(api.get, id);
    expect([...chains.keys()].sort()).toEqual(["echo", "get-sum", "trigger-long-running-operation"]);
    // No receipt.* evidence: a success is unverified (contract rule 20), never healthy.
    expect(verdict(chains.get("echo"))).toEqual({ state: "unverified", reasons: ["outcome.no_receipt"] });
    expect(verdict(chains.get("get-sum"))).toEqual({ state: "tool_failed", reasons: ["request.tool_error"] });
    // -32001 is the SDK's own timeout: no response, and a write may have happened (side effect unknown).
    expect(verdict(chains.get("trigger-long-running-operation"))).toEqual({
      state: "effect_unknown",
      reasons: ["effect.unreconciled", "request.cancelled"],
    });
  });

  it("Streamable HTTP, JSON exporter: the session's chain arrives and is not healthy without receipts", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = runId("traceloop-http");
    const report = await agent({
      exporter: "json",
      transport: "http",
      instrumentation: "traceloop",
      runId: id,
      calls: [{ tool: "echo", arguments: { message: marker } }],
    });
    expectAcceptedExports(report);
    expect(report.sessionId).toBeTruthy();
    const chains = await chainsOfRun(api.get, id);
    expect([...chains.keys()]).toEqual(["echo"]);
    expect(verdict(chains.get("echo"))).toEqual({ state: "unverified", reasons: ["outcome.no_receipt"] });
  });
});

describe("the semantic conventions set by hand, through the OpenTelemetry SDK and exporters", () => {
  it("full receipt.* evidence over stdio, one span per export (JSON): healthy with strong evidence", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = runId("conventions-full");
    const report = await agent({
      exporter: "json",
      transport: "stdio",
      instrumentation: "conventions",
      processor: "simple",
      receiptSession: true,
      runId: id,
      calls: [
        {
          tool: "echo",
          arguments: { message: marker },
          receipt: {
            "receipt.call.side_effect": "none",
            "receipt.call.deadline_ms": 30_000,
            "receipt.call.inactivity_ms": 30_000,
            "receipt.call.expected_verifier": "test",
          },
          outcome: { verifier: "test", verdict: "pass", receipt: "echo-matched" },
        },
        {
          tool: "get-sum",
          arguments: { a: 40, b: 2 },
          receipt: {
            "receipt.call.side_effect": "write",
            "receipt.call.operation_key": "sum-42",
            "receipt.call.deadline_ms": 30_000,
            "receipt.call.inactivity_ms": 30_000,
          },
          effect: { status: "committed", receipt: "sums/42" },
          outcome: { verifier: "db_row", verdict: "fail", receipt: "row 42 missing" },
        },
        { tool: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 }, timeoutMs: 300 },
      ],
    });
    expect(report.calls.map((c) => c.kind)).toEqual(["result", "result", "thrown"]);
    expectAcceptedExports(report);
    expect(report.exports.length, "one export per span").toBeGreaterThanOrEqual(6);
    const chains = await chainsOfRun(api.get, id);
    // The destination has the write but the verifier says the deliverable is wrong.
    const sum = chains.get("get-sum") ?? fail();
    expect({ state: sum.state, reason: sum.reasons[0], retrySafe: sum.retrySafe }).toEqual({
      state: "false_success",
      reason: "outcome.verifier_failed",
      retrySafe: false,
    });
    // Timed out and cancelled (a notifications/cancelled span under the call), side effect not declared.
    const slow = chains.get("trigger-long-running-operation") ?? fail();
    expect({ state: slow.state, reasons: slow.reasons }).toEqual({
      state: "effect_unknown",
      reasons: ["effect.unreconciled", "request.cancelled"],
    });
    const echo = chains.get("echo") ?? fail();
    expect({ state: echo.state, reason: echo.reasons[0], evidence: echo.evidence }).toEqual({
      state: "healthy",
      reason: "outcome.verified",
      evidence: "strong",
    });
    expect(echo.transport).toBe("stdio");
    expect(echo.server?.name).toBe("mcp-servers/everything");
  });

  it("many calls whose spans are exported concurrently, one per export: every chain ends healthy", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = runId("conventions-concurrent");
    const count = 6;
    const report = await agent({
      exporter: "proto",
      transport: "stdio",
      instrumentation: "conventions",
      processor: "simple",
      receiptSession: true,
      runId: id,
      calls: Array.from({ length: count }, (_, i) => ({
        tool: "echo",
        arguments: { message: `${marker}-${i}` },
        receipt: { "receipt.call.side_effect": "none" },
        outcome: { verifier: "test", verdict: "pass" as const },
      })),
    });
    expectAcceptedExports(report);
    const calls = (await listChainsOfRun(api.get, id)).filter((chain) => chain.tool === "echo");
    expect(calls.map((chain) => [chain.state, chain.reasons[0], chain.evidence])).toEqual(
      Array.from({ length: count }, () => ["healthy", "outcome.verified", "strong"]),
    );
  });

  it("plain conventions over Streamable HTTP (protobuf): success, isError and a JSON-RPC error", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = runId("conventions-plain");
    const report = await agent({
      exporter: "proto",
      transport: "http",
      instrumentation: "conventions",
      runId: id,
      calls: [
        { tool: "echo", arguments: { message: marker } },
        { tool: "get-sum", arguments: { a: marker, b: 1 } },
        // Arguments that are not an object: server-everything answers a JSON-RPC error (-32603), not a result.
        { tool: "get-env", arguments: marker as unknown as Record<string, unknown> },
      ],
    });
    expect(report.calls).toEqual([
      { tool: "echo", kind: "result" },
      { tool: "get-sum", kind: "isError" },
      { tool: "get-env", kind: "thrown", code: -32603 },
    ]);
    expectAcceptedExports(report);
    const chains = await chainsOfRun(api.get, id);
    expect([...chains.keys()].sort()).toEqual(["echo", "get-env", "get-sum"]);
    const echo = chains.get("echo") ?? fail();
    expect(echo.state === "healthy" && echo.evidence === "strong", "plain call healthy-strong").toBe(false);
    expect(verdict(echo)).toEqual({ state: "unverified", reasons: ["outcome.no_receipt"] });
    expect(requestVerdict(chains.get("get-sum") ?? fail())).toEqual({
      state: "tool_failed",
      reason: "request.tool_error",
    });
    // -32603 is not in the caller set (contract rule 13): the server failed, and it may have written.
    expect(requestVerdict(chains.get("get-env") ?? fail())).toEqual({
      state: "tool_failed",
      reason: "request.server_error",
    });
    expect(chains.get("get-env")?.retrySafe).toBe(false);
    // All three chains belong to the one MCP session the conventions named (mcp.session.id).
    expect(new Set([...chains.values()].map((c) => c.sessionId)).size).toBe(1);
  });
});

describe("zero-code configuration", () => {
  it("an exporter configured only by OTEL_EXPORTER_OTLP_ENDPOINT and _HEADERS reaches Receipt", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = runId("env");
    const report = await runAgent(
      {
        endpoint: "unused",
        key: "unused",
        exporter: "proto",
        transport: "stdio",
        instrumentation: "traceloop",
        configuredByEnvironment: true,
        runId: id,
        calls: [{ tool: "echo", arguments: { message: marker } }],
      },
      {
        // The base URL: the exporter appends /v1/traces. A header value's space is percent-encoded (W3C baggage format).
        OTEL_EXPORTER_OTLP_ENDPOINT: app.baseUrl,
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${key}`,
      },
    );
    expectAcceptedExports(report);
    expect([...(await chainsOfRun(api.get, id)).keys()]).toEqual(["echo"]);
  });
});

describe("duplicates", () => {
  it("an exporter that sends every export twice stores each span once and each record once", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = runId("duplicates");
    const report = await agent({
      exporter: "proto",
      transport: "stdio",
      instrumentation: "conventions",
      processor: "simple",
      duplicateExports: true,
      runId: id,
      calls: [{ tool: "echo", arguments: { message: marker } }],
    });
    expectAcceptedExports(report);
    const spansSent = report.exports.reduce((sum, e) => sum + e.spans, 0) / 2;
    expect(report.exports.length % 2).toBe(0);
    // The resource's service.name (the run id) is kept on every stored span.
    expect((await rowsContaining(db.url, id))["public.otlp_spans"]).toBe(spansSent);
    const echo = (await chainsOfRun(api.get, id)).get("echo") ?? fail();
    expect(verdict(echo)).toEqual({ state: "unverified", reasons: ["outcome.no_receipt"] });
    expect(echo.recordCount).toBe(1);
  });
});

describe("redaction", () => {
  it("stores no argument or result value anywhere: every table of the database, and the server's output", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    expect(runIds.length, "the agent runs above happened").toBeGreaterThanOrEqual(6);
    // The search itself works: each run's client name is stored.
    expect(Object.keys(await rowsContaining(db.url, runIds[0] ?? "")).length).toBeGreaterThan(0);
    expect(await rowsContaining(db.url, marker)).toEqual({});
    expect(app.output()).not.toContain(marker);
  });
});

function verdict(chain: ChainListItem | undefined) {
  return { state: chain?.state, reasons: chain?.reasons };
}

function fail(): never {
  throw new Error("chain missing");
}
