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
});
