import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier";
import { validateRecord } from "@/lib/contract";
import { buildRecords, type OtlpSpan, redactSpan } from "@/lib/otlp";
import {
  FULL_RECEIPT,
  iso,
  PASSING_OUTCOME,
  span,
  traceloopCall,
  traceloopSession,
} from "../support/otlp-spans";

function chain(spans: OtlpSpan[]) {
  const { records, problems } = buildRecords(spans);
  expect(problems).toEqual([]);
  expect(records).toHaveLength(1);
  const validation = validateRecord(records[0]);
  if (!validation.ok) throw new Error(JSON.stringify(validation.issues));
  return { record: validation.record, result: classify(validation.record) };
}

describe("OTLP mapping of @traceloop/instrumentation-mcp spans", () => {
  it("reads the handshake and the tool list from traceloop's content, then drops the content", () => {
    const { session, spans } = traceloopSession();
    const { record, result } = chain([...spans, traceloopCall(session)]);
    expect(record.session).toMatchObject({
      client: { name: "weather-agent", version: "1.4.0" },
      server: { name: "mcp-servers/everything", version: "2.0.0" },
      protocol: {
        era: "legacy",
        requestedVersion: "2025-11-25",
        acceptedVersion: "2025-11-25",
        initializedAt: iso(20),
      },
      capabilities: { server: ["logging", "tools", "tools.listChanged"], client: [] },
    });
    expect(record.catalog).toMatchObject({ toolCount: 2, complete: true, refreshedAt: iso(40) });
    expect(record.call).toMatchObject({
      tool: "get-weather",
      inCatalog: true,
      requestId: expect.stringMatching(/^span:/),
    });
    expect(result.state).toBe("unverified");
    expect(result.reasons[0]).toBe("outcome.no_receipt");
    const stored = JSON.stringify([...spans.map(redactSpan), redactSpan(traceloopCall(session))]);
    expect(stored).not.toContain("traceloop.entity.input");
    expect(stored).not.toContain("Paris");
    expect(stored).not.toContain("Sunny");
    expect(stored).not.toContain("the echo tool");
  });

  it("a tool not in the listed tools is protocol_error (request.unknown_tool)", () => {
    const { session, spans } = traceloopSession({ tools: ["echo"] });
    const { record, result } = chain([...spans, traceloopCall(session, { tool: "get-weather" })]);
    expect(record.call?.inCatalog).toBe(false);
    expect(result.reasons[0]).toBe("request.unknown_tool");
  });

  it("error status without an exception is an isError result (traceloop's way of recording one)", () => {
    const { session, spans } = traceloopSession();
    const { record, result } = chain([...spans, traceloopCall(session, { status: "error" })]);
    expect(record.call?.response).toMatchObject({ kind: "result", isError: true });
    expect(result.reasons[0]).toBe("request.tool_error");
  });

  it("a thrown McpError's code comes from the exception message; its text is never kept", () => {
    const { session, spans } = traceloopSession();
    const exception = (message: string, type = "McpError") => [
      { name: "exception", at: 150, attributes: { "exception.type": type, "exception.message": message } },
    ];
    const invalid = traceloopCall(session, {
      status: "error",
      events: exception("MCP error -32602: Invalid arguments for tool get-weather: city=Paris"),
    });
    const caller = chain([...spans, invalid]);
    expect(caller.record.call?.response).toMatchObject({
      kind: "error",
      error: { code: -32602, class: "invalid_params" },
    });
    expect(caller.result.reasons[0]).toBe("request.caller_error");
    expect(JSON.stringify(redactSpan(invalid))).not.toContain("Paris");

    const timeout = traceloopCall(session, {
      status: "error",
      events: exception("MCP error -32001: Request timed out"),
    });
    const timedOut = chain([...spans, timeout]);
    expect(timedOut.record.call?.response).toBeUndefined();
    expect(timedOut.result.state).toBe("effect_unknown");

    const aborted = traceloopCall(session, {
      status: "error",
      events: exception("This operation was aborted", "AbortError"),
    });
    expect(chain([...spans, aborted]).record.call?.cancelledAt).toBe(iso(150));
  });

  it("receipt.* on the agent's own span that encloses the call and names its tool make it healthy", () => {
    const { session, spans } = traceloopSession();
    const receipt = span({
      name: "receipt get-weather",
      kind: "internal",
      start: 90,
      end: 180,
      attributes: { ...FULL_RECEIPT, "receipt.call.tool": "get-weather" },
      events: PASSING_OUTCOME,
    });
    const { record, result } = chain([...spans, receipt, traceloopCall(session)]);
    expect(result).toMatchObject({ state: "healthy", evidence: "strong" });
    expect(record.call?.operationKey).toBe("op:weather-report-42");
    const otherTool = { ...receipt, attributes: { ...receipt.attributes, "receipt.call.tool": "echo" } };
    expect(chain([...spans, otherTool, traceloopCall(session)]).result.reasons[0]).toBe("outcome.no_receipt");
  });

  it("spans captured from @traceloop/instrumentation-mcp 0.27 against server-everything map to the states they should", () => {
    // Captured with an in-memory exporter: connect over stdio, listTools, then echo, an unknown tool, get-sum with a
    // bad argument (both isError results), a long operation with a 300 ms timeout, and one aborted after 200 ms.
    const captured: OtlpSpan[] = JSON.parse(
      readFileSync(new URL("../fixtures/otlp/traceloop-everything.json", import.meta.url), "utf8"),
    );
    const { records, problems } = buildRecords(captured);
    expect(problems).toEqual([]);
    const outcomes = records.map((raw) => {
      const validation = validateRecord(raw);
      if (!validation.ok) throw new Error(JSON.stringify(validation.issues));
      const result = classify(validation.record);
      return `${validation.record.call?.tool}: ${result.state} ${result.reasons[0]}`;
    });
    expect(outcomes.sort()).toEqual([
      "echo: unverified outcome.no_receipt",
      "get-sum: tool_failed request.tool_error",
      "no-such-tool: protocol_error request.unknown_tool",
      "trigger-long-running-operation: effect_unknown effect.unreconciled",
      "trigger-long-running-operation: effect_unknown effect.unreconciled",
    ]);
    const [first] = records as { session: unknown; catalog: unknown }[];
    expect(first?.session).toMatchObject({
      client: { name: "scratch-agent", version: "0.0.1" },
      server: { name: "mcp-servers/everything" },
      protocol: { requestedVersion: "2025-11-25", acceptedVersion: "2025-11-25" },
    });
    expect(first?.catalog).toMatchObject({ toolCount: 13 });
    const kept = JSON.stringify([records, captured.map(redactSpan)]);
    expect(JSON.stringify(captured)).toContain("hello Paris");
    expect(kept).not.toContain("hello Paris");
    expect(kept).not.toContain("Request timed out");
  });

  it("captured under one root span, an agent's receipt span around echo makes that chain healthy", () => {
    // The same run as above, inside a root span, with `receipt echo` (receipt.call.tool, side effect none, a passing
    // `test` outcome event) started around the echo call.
    const captured: OtlpSpan[] = JSON.parse(
      readFileSync(new URL("../fixtures/otlp/traceloop-receipted.json", import.meta.url), "utf8"),
    );
    const echo = buildRecords(captured).records.find(
      (record) => (record as { call?: { tool: string } }).call?.tool === "echo",
    );
    const validation = validateRecord(echo);
    if (!validation.ok) throw new Error(JSON.stringify(validation.issues));
    expect(classify(validation.record)).toMatchObject({ state: "healthy", evidence: "strong" });
    expect(validation.record.call).toMatchObject({
      sideEffect: "none",
      deadlineMs: 10_000,
      expectedVerifier: "test",
    });
  });
});
