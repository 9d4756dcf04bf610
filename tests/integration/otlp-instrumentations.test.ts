import { describe, expect, it } from "vitest";
import { AGENT_TEST_TIMEOUT, expectAcceptedExports, requestVerdict } from "@/tests/support/otlp-agent";
import { receiptForThisFile, verdict } from "@/tests/support/otlp-receipt";

// A real agent process — MCP SDK client, server-everything, an OpenTelemetry instrumentation from npm or the
// semantic conventions set by hand, the real OTLP exporters — reporting to a running Receipt at /v1/traces.
// Every assertion reads what Receipt stored and decided through its read API or its database.

const receipt = receiptForThisFile();

describe("off the shelf: @traceloop/instrumentation-mcp (+ Arize trace context)", () => {
  it("stdio, protobuf exporter: a plain success, an isError result and a client timeout", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = receipt.runId("traceloop-stdio");
    const report = await receipt.agent({
      exporter: "proto",
      transport: "stdio",
      instrumentation: "traceloop",
      runId: id,
      calls: [
        { tool: "echo", arguments: { message: receipt.marker } },
        { tool: "get-sum", arguments: { a: receipt.marker, b: 1 } },
        { tool: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 }, timeoutMs: 300 },
      ],
    });
    expect(report.calls.map((c) => c.kind)).toEqual(["result", "isError", "thrown"]);
    expectAcceptedExports(report);

    const chains = await receipt.chains(id);
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
    const id = receipt.runId("traceloop-http");
    const report = await receipt.agent({
      exporter: "json",
      transport: "http",
      instrumentation: "traceloop",
      runId: id,
      calls: [{ tool: "echo", arguments: { message: receipt.marker } }],
    });
    expectAcceptedExports(report);
    expect(report.sessionId).toBeTruthy();
    const chains = await receipt.chains(id);
    expect([...chains.keys()]).toEqual(["echo"]);
    expect(verdict(chains.get("echo"))).toEqual({ state: "unverified", reasons: ["outcome.no_receipt"] });
  });
});

describe("off the shelf, with the agent's receipt span around each call (docs/OTLP.md)", () => {
  it("Traceloop over stdio (JSON): receipt.* and the outcome on the agent's span make the chain healthy", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = receipt.runId("traceloop-receipts");
    const report = await receipt.agent({
      exporter: "json",
      transport: "stdio",
      instrumentation: "traceloop",
      runId: id,
      calls: [
        {
          tool: "echo",
          arguments: { message: receipt.marker },
          receipt: { "receipt.call.side_effect": "none", "receipt.call.expected_verifier": "test" },
          outcome: { verifier: "test", verdict: "pass", receipt: "echo-matched" },
        },
        {
          tool: "get-sum",
          arguments: { a: 40, b: 2 },
          receipt: { "receipt.call.side_effect": "write", "receipt.call.operation_key": "sum-42" },
          effect: { status: "committed", receipt: "sums/42" },
          outcome: { verifier: "db_row", verdict: "fail" },
        },
      ],
    });
    expect(report.calls.map((c) => c.kind)).toEqual(["result", "result"]);
    expectAcceptedExports(report);
    const chains = await receipt.chains(id);
    const echo = chains.get("echo");
    expect({ ...verdict(echo), evidence: echo?.evidence }).toEqual({
      state: "healthy",
      reasons: ["outcome.verified"],
      evidence: "strong",
    });
    expect(verdict(chains.get("get-sum"))).toEqual({
      state: "false_success",
      reasons: ["outcome.verifier_failed"],
    });
  });
});

describe("the semantic conventions set by hand, through the OpenTelemetry SDK and exporters", () => {
  it("full receipt.* evidence over stdio, one span per export (JSON): healthy with strong evidence", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = receipt.runId("conventions-full");
    const report = await receipt.agent({
      exporter: "json",
      transport: "stdio",
      instrumentation: "conventions",
      processor: "simple",
      receiptSession: true,
      runId: id,
      calls: [
        {
          tool: "echo",
          arguments: { message: receipt.marker },
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
    // The first exports hold only the handshake: that gives no chain of its own, which nothing would supersede.
    expect((await receipt.allChains(id)).map((chain) => chain.tool).sort()).toEqual([
      "echo",
      "get-sum",
      "trigger-long-running-operation",
    ]);
    const chains = await receipt.chains(id);
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
});

describe("the semantic conventions without receipt.* attributes", () => {
  it("plain conventions over Streamable HTTP (protobuf): success, isError and a JSON-RPC error", {
    timeout: AGENT_TEST_TIMEOUT,
  }, async () => {
    const id = receipt.runId("conventions-plain");
    const report = await receipt.agent({
      exporter: "proto",
      transport: "http",
      instrumentation: "conventions",
      runId: id,
      calls: [
        { tool: "echo", arguments: { message: receipt.marker } },
        { tool: "get-sum", arguments: { a: receipt.marker, b: 1 } },
        // Arguments that are not an object: server-everything answers a JSON-RPC error (-32603), not a result.
        { tool: "get-env", arguments: receipt.marker as unknown as Record<string, unknown> },
      ],
    });
    expect(report.calls).toEqual([
      { tool: "echo", kind: "result" },
      { tool: "get-sum", kind: "isError" },
      { tool: "get-env", kind: "thrown", code: -32603 },
    ]);
    expectAcceptedExports(report);
    const chains = await receipt.chains(id);
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

describe("redaction", () => {
  it("stores no argument or result value anywhere: every table of the database, and the server's output", async () => {
    await receipt.expectMarkerStoredNowhere(5);
  });
});

function fail(): never {
  throw new Error("chain missing");
}
