import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier";
import { buildRecords, type OtlpAttributes, type OtlpSpan } from "@/lib/otlp";
import { onlyChain } from "../support/otlp-classify";
import { iso, OTHER_TRACE, semconvCall, semconvSession, span } from "../support/otlp-spans";

// MCP 2025-11-25's follow-ups of a call as their own spans: notifications/progress and tasks/get, tasks/result,
// tasks/cancel. Each is found by the call's progress token or task id (any trace of the session), or as a child of
// the call span, and feeds the call's progress and task the way the contract reads them (rules 14 and 15).

const SESSION = "sess-follow-ups";
const session = () => semconvSession({ sessionId: SESSION, version: "2025-11-25" });
const common = (method: string): OtlpAttributes => ({
  "mcp.method.name": method,
  "mcp.session.id": SESSION,
  "mcp.protocol.version": "2025-11-25",
  "network.transport": "pipe",
});

function progress(
  at: number,
  value: number,
  options: { parent?: string; token?: string; trace?: string } = {},
) {
  const attributes: OtlpAttributes = { ...common("notifications/progress"), "receipt.progress.value": value };
  if (options.token !== undefined) attributes["receipt.progress.token"] = options.token;
  const built = span({
    traceId: options.trace ?? OTHER_TRACE,
    name: "notifications/progress",
    kind: "server",
    start: at,
    end: at + 1,
    attributes: { ...attributes, "receipt.progress.total": 10 },
  });
  if (options.parent !== undefined) built.parentSpanId = options.parent;
  return built;
}

function taskSpan(
  method: "tasks/get" | "tasks/result" | "tasks/cancel",
  start: number,
  attributes: OtlpAttributes = {},
  status: "unset" | "error" = "unset",
): OtlpSpan {
  return span({
    traceId: OTHER_TRACE,
    name: method,
    start,
    end: start + 10,
    status,
    attributes: { ...common(method), "receipt.task.id": "task-1", ...attributes },
  });
}

/** A call still in flight (no end) with a progress token, a 60 s deadline and a 10 s inactivity window. */
const inFlightCall = () =>
  semconvCall({
    sessionId: SESSION,
    version: "2025-11-25",
    end: null,
    attributes: {
      "receipt.call.progress_token": "tok-1",
      "receipt.call.deadline_ms": 60_000,
      "receipt.call.inactivity_ms": 10_000,
      "receipt.call.side_effect": "none",
    },
  });

/** A call the server answered with a task handle (CreateTaskResult) at t 150. */
const taskCall = () =>
  semconvCall({
    sessionId: SESSION,
    version: "2025-11-25",
    attributes: {
      "receipt.call.result_type": "task",
      "receipt.task.id": "task-1",
      "receipt.call.deadline_ms": 60_000,
      "receipt.call.inactivity_ms": 10_000,
      "receipt.call.side_effect": "none",
    },
  });

describe("notifications/progress spans", () => {
  it("a progress notification under the call span is the call's progress, with the call's token, and keeps it working", () => {
    const call = inFlightCall();
    const { record, result } = onlyChain([
      ...session(),
      call,
      progress(5_000, 1, { parent: call.spanId, trace: call.traceId }),
      progress(12_000, 2, { parent: call.spanId, trace: call.traceId }),
    ]);
    expect(record.call?.progress).toEqual([
      { at: iso(5_000), token: "tok-1", progress: 1, total: 10 },
      { at: iso(12_000), token: "tok-1", progress: 2, total: 10 },
    ]);
    expect(record.observedAt).toBe(iso(12_001));
    expect(result.state).toBe("working");
    expect(result.nextCheckAt).toBe(iso(22_000));
  });

  it("without its progress the same call is inactive (what the notifications bought)", () => {
    const call = inFlightCall();
    const { record } = onlyChain([...session(), call]);
    const result = classify(record, iso(12_001));
    expect(result.reasons).toContain("request.inactive");
  });

  it("a notification in another trace is the call's by its token, only while the call is in flight", () => {
    const call = semconvCall({
      sessionId: SESSION,
      version: "2025-11-25",
      end: 20_000,
      attributes: { "receipt.call.progress_token": "tok-1" },
    });
    const { record, result } = onlyChain([
      ...session(),
      call,
      progress(5_000, 1, { token: "tok-1" }),
      progress(6_000, 2, { token: "tok-other" }),
      progress(25_000, 3, { token: "tok-1" }), // after the call: another request's use of the token
    ]);
    expect(record.call?.progress).toEqual([{ at: iso(5_000), token: "tok-1", progress: 1, total: 10 }]);
    expect(result.reasons).not.toContain("request.progress_inconsistent");
  });

  it("one notification seen from both ends (server send, client receipt) is one entry", () => {
    const call = inFlightCall();
    const sent = progress(5_000, 1, { token: "tok-1" });
    sent.kind = "client";
    const received = progress(5_002, 1, { parent: call.spanId, trace: call.traceId });
    const { record, result } = onlyChain([...session(), call, sent, received]);
    expect(record.call?.progress).toEqual([{ at: iso(5_000), token: "tok-1", progress: 1, total: 10 }]);
    expect(result.reasons).not.toContain("request.progress_inconsistent");
  });

  it("a server's own tasks/get span (a server instrumented in the session) is not a second poll", () => {
    const serverSide = taskSpan("tasks/get", 9_000, { "receipt.task.status": "completed" });
    serverSide.kind = "server";
    const { record } = onlyChain([
      ...session(),
      taskCall(),
      taskSpan("tasks/get", 1_000, { "receipt.task.status": "working" }),
      serverSide,
    ]);
    expect(record.call?.task).toMatchObject({ status: "working", polledAt: iso(1_010) });
  });

  it("a notification whose value is not a number is ignored and named", () => {
    const call = inFlightCall();
    const bad = progress(5_000, 1, { parent: call.spanId, trace: call.traceId });
    bad.attributes["receipt.progress.value"] = "half";
    const { records, problems } = buildRecords([...session(), call, bad]);
    expect((records[0] as { call: { progress: unknown[] } }).call.progress).toEqual([]);
    expect(problems).toEqual([
      expect.objectContaining({
        spanId: bad.spanId,
        code: "invalid_attribute",
        message: "receipt.progress.value ignored: expected a number",
      }),
    ]);
  });
});

describe("tasks/* spans", () => {
  it("tasks/get polls that see working keep the call working from the first poll that saw it, not the last", () => {
    const { record, result } = onlyChain([
      ...session(),
      taskCall(),
      taskSpan("tasks/get", 1_000, { "receipt.task.status": "working" }),
      taskSpan("tasks/get", 5_000, { "receipt.task.status": "working" }),
    ]);
    expect(record.call?.response).toMatchObject({ kind: "result", resultType: "task" });
    expect(record.call?.task).toEqual({
      id: "task-1",
      status: "working",
      updatedAt: iso(1_010),
      polledAt: iso(5_010),
    });
    expect(result.state).toBe("working");
    expect(result.reasons[0]).toBe("task.working");
    expect(result.nextCheckAt).toBe(iso(11_010));
  });

  it("tasks/result answered: completed (healthy path), a tool error, or a JSON-RPC error (task.failed)", () => {
    const done = onlyChain([
      ...session(),
      taskCall(),
      taskSpan("tasks/get", 1_000, { "receipt.task.status": "working" }),
      taskSpan("tasks/result", 2_000),
    ]);
    expect(done.record.call?.task).toMatchObject({ status: "completed", result: { isError: false } });
    expect(done.result.state).toBe("unverified");
    expect(done.result.reasons[0]).toBe("outcome.no_receipt");

    const toolError = onlyChain([
      ...session(),
      taskCall(),
      taskSpan("tasks/result", 2_000, { "error.type": "tool_error" }, "error"),
    ]);
    expect(toolError.record.call?.task).toMatchObject({ status: "completed", result: { isError: true } });
    expect(toolError.result).toMatchObject({ state: "tool_failed", reasons: ["request.tool_error"] });

    const failed = onlyChain([
      ...session(),
      taskCall(),
      taskSpan("tasks/result", 2_000, { "rpc.response.status_code": -32603 }, "error"),
    ]);
    expect(failed.record.call?.task).toMatchObject({
      status: "failed",
      error: { code: -32603, class: "internal_error" },
    });
    expect(failed.result.state).toBe("tool_failed");
    expect(failed.result.reasons[0]).toBe("task.failed");
  });

  it("tasks/cancel: the client cancelled at its start; answered, the task is cancelled", () => {
    const { record, result } = onlyChain([
      ...session(),
      taskCall(),
      taskSpan("tasks/get", 1_000, { "receipt.task.status": "working" }),
      taskSpan("tasks/cancel", 3_000),
    ]);
    expect(record.call?.cancelledAt).toBe(iso(3_000));
    expect(record.call?.task).toMatchObject({ status: "cancelled", updatedAt: iso(3_010) });
    expect(result.state).toBe("tool_failed");
    expect(result.reasons).toEqual(["request.unfinished_read_only", "request.cancelled", "task.cancelled"]);
  });

  it("a tasks/get that timed out on the client shows nothing; another task's spans are not the call's", () => {
    const { record } = onlyChain([
      ...session(),
      taskCall(),
      taskSpan("tasks/get", 1_000, { "receipt.task.status": "working" }),
      taskSpan(
        "tasks/get",
        2_000,
        { "receipt.task.status": "completed", "rpc.response.status_code": -32001 },
        "error",
      ),
      taskSpan("tasks/result", 3_000, { "receipt.task.id": "task-2" }),
    ]);
    expect(record.call?.task).toEqual({
      id: "task-1",
      status: "working",
      updatedAt: iso(1_010),
      polledAt: iso(1_010),
    });
  });

  it("the agent's later receipt.task event wins over an earlier poll", () => {
    const call = taskCall();
    call.events.push({
      name: "receipt.task",
      timeUnixNano: (BigInt(Date.parse(iso(4_000))) * 1_000_000n).toString(),
      attributes: { "receipt.task.id": "task-1", "receipt.task.status": "input_required" },
    });
    const { record } = onlyChain([
      ...session(),
      call,
      taskSpan("tasks/get", 1_000, { "receipt.task.status": "working" }),
    ]);
    expect(record.call?.task).toEqual({ id: "task-1", status: "input_required", updatedAt: iso(4_000) });
  });
});
