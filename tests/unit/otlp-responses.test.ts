import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier";
import { DEFAULT_DEADLINE_MS } from "@/lib/otlp";
import { onlyChain } from "../support/otlp-classify";
import { iso, semconvCall, semconvSession, span } from "../support/otlp-spans";

describe("OTLP mapping (conventions): responses, failures and unfinished calls → classifier", () => {
  it("error.type tool_error (an isError result) is tool_failed", () => {
    const call = semconvCall({ status: "error", attributes: { "error.type": "tool_error" } });
    const { record, result } = onlyChain([...semconvSession(), call]);
    expect(result.state).toBe("tool_failed");
    expect(result.reasons[0]).toBe("request.tool_error");
    expect(record.call?.response).toMatchObject({ kind: "result", isError: true });
  });

  it("a JSON-RPC error: caller codes are protocol_error, others tool_failed", () => {
    const invalid = semconvCall({
      status: "error",
      attributes: { "error.type": "-32602", "rpc.response.status_code": "-32602" },
    });
    const caller = onlyChain([...semconvSession(), invalid]);
    expect(caller.result.state).toBe("protocol_error");
    expect(caller.result.reasons[0]).toBe("request.caller_error");
    expect(caller.record.call?.response).toEqual({
      at: iso(150),
      kind: "error",
      error: { code: -32602, class: "invalid_params" },
    });
    const internal = semconvCall({ status: "error", attributes: { "rpc.response.status_code": "-32603" } });
    const server = onlyChain([...semconvSession(), internal]);
    expect(server.result.state).toBe("tool_failed");
    expect(server.result.reasons[0]).toBe("request.server_error");
  });

  it("error status and no response (the server never answered) is effect_unknown for a possible write", () => {
    const timeout = semconvCall({ status: "error", attributes: { "error.type": "timeout" } });
    const { record, result } = onlyChain([...semconvSession(), timeout]);
    expect(record.call?.response).toBeUndefined();
    expect(record.call?.cancelledAt).toBe(iso(150));
    expect(result.state).toBe("effect_unknown");
    expect(result.reasons).toEqual(["effect.unreconciled", "request.cancelled"]);
    expect(result.retrySafe).toBe(false);
    const readOnly = semconvCall({
      status: "error",
      attributes: { "error.type": "-32001", "receipt.call.side_effect": "none" },
    });
    const read = onlyChain([...semconvSession(), readOnly]);
    expect(read.result.state).toBe("tool_failed");
    expect(read.result.reasons[0]).toBe("request.unfinished_read_only");
    const absent = semconvCall({
      status: "error",
      events: [{ name: "receipt.effect", at: 200, attributes: { "receipt.effect.status": "absent" } }],
    });
    expect(onlyChain([...semconvSession(), absent]).result.reasons[0]).toBe("effect.absent");
  });

  it("a cancelled call (notifications/cancelled inside it, or a receipt.cancelled event) is unfinished", () => {
    const call = semconvCall({ status: "error", spanId: "00000000000000c1" });
    const cancel = span({
      name: "notifications/cancelled",
      parentSpanId: "00000000000000c1",
      start: 140,
      end: 141,
      attributes: { "mcp.method.name": "notifications/cancelled" },
    });
    const { record, result } = onlyChain([...semconvSession(), call, cancel]);
    expect(record.call?.cancelledAt).toBe(iso(140));
    expect(result.state).toBe("effect_unknown");
    expect(result.reasons).toContain("request.cancelled");
    const inFlight = semconvCall({ end: null, events: [{ name: "receipt.cancelled", at: 120 }] });
    const viaEvent = onlyChain([...semconvSession(), inFlight]);
    expect(viaEvent.record.call?.cancelledAt).toBe(iso(120));
    expect(viaEvent.result.reasons).toContain("request.cancelled");
  });

  it("an unfinished span is working inside the default deadline and is judged at it", () => {
    const { record, result } = onlyChain([...semconvSession(), semconvCall({ end: null })]);
    expect(record.call?.deadlineMs).toBe(DEFAULT_DEADLINE_MS);
    expect(result.state).toBe("working");
    expect(result.nextCheckAt).toBe(iso(100 + DEFAULT_DEADLINE_MS));
    const later = classify(record, iso(100 + DEFAULT_DEADLINE_MS + 1));
    expect(later.state).toBe("effect_unknown");
    expect(later.reasons).toContain("request.deadline_exceeded");
  });

  it("a call that ran longer than the default deadline is still judged on its response", () => {
    const long = semconvCall({ start: 100, end: 100 + 2 * DEFAULT_DEADLINE_MS });
    const { record, result } = onlyChain([...semconvSession(), long]);
    expect(record.call?.deadlineMs).toBe(2 * DEFAULT_DEADLINE_MS);
    expect(result.reasons[0]).toBe("outcome.no_receipt");
  });

  it("progress events with the call's token keep a long call working; a task handle maps to the task", () => {
    const progress = [40, 80].map((value, index) => ({
      name: "receipt.progress",
      at: 110 + index * 10,
      attributes: {
        "receipt.progress.token": 7,
        "receipt.progress.value": value,
        "receipt.progress.total": 100,
      },
    }));
    const running = semconvCall({
      end: null,
      attributes: { "receipt.call.progress_token": 7 },
      events: progress,
    });
    const { record, result } = onlyChain([...semconvSession(), running]);
    expect(record.call?.progress).toHaveLength(2);
    expect(result.state).toBe("working");
    expect(result.reasons).not.toContain("request.progress_inconsistent");
    const task = semconvCall({
      events: [
        {
          name: "receipt.task",
          at: 400,
          attributes: {
            "receipt.task.id": "task-1",
            "receipt.task.status": "completed",
            "receipt.task.result_is_error": true,
          },
        },
      ],
    });
    const tasked = onlyChain([...semconvSession(), task]);
    expect(tasked.record.call?.response?.resultType).toBe("task");
    expect(tasked.result.reasons[0]).toBe("request.tool_error");
  });
});
