import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { OtlpAttributes } from "@/lib/otlp";
import { otlpTestApp } from "@/tests/support/otlp-app";
import { semconvCall, semconvSession, span } from "@/tests/support/otlp-spans";

// notifications/progress and tasks/* spans through POST /v1/traces: a follow-up in another trace and a later export
// than its call still changes the stored chain (its session is rebuilt from every span it holds).

const otlp = otlpTestApp();
const newTrace = () => randomBytes(16).toString("hex");

function followUp(session: string, method: string, start: number, attributes: OtlpAttributes) {
  return span({
    traceId: newTrace(),
    name: method,
    kind: method === "notifications/progress" ? "server" : "client",
    start,
    end: start + 10,
    attributes: {
      "mcp.method.name": method,
      "mcp.session.id": session,
      "mcp.protocol.version": "2025-11-25",
      "network.transport": "pipe",
      ...attributes,
    },
  });
}

describe("follow-up spans of a stored call", () => {
  it("a task call stays working while polls see it working, then tasks/result's error makes it tool_failed", async () => {
    const session = "sess-task-follow-ups";
    const traceId = newTrace();
    const call = semconvCall({
      traceId,
      sessionId: session,
      version: "2025-11-25",
      attributes: {
        "receipt.call.result_type": "task",
        "receipt.task.id": "task-7",
        "receipt.call.deadline_ms": 600_000,
        "receipt.call.inactivity_ms": 60_000,
      },
    });
    const first = await otlp.send([
      ...semconvSession({ traceId, sessionId: session, version: "2025-11-25" }),
      call,
      followUp(session, "tasks/get", 1_000, {
        "receipt.task.id": "task-7",
        "receipt.task.status": "working",
      }),
    ]);
    expect(first.partialSuccess?.rejectedSpans ?? "0").toBe("0");
    expect((await otlp.chainOf(call)).state).toBe("working");

    const later = await otlp.send([
      followUp(session, "tasks/get", 5_000, {
        "receipt.task.id": "task-7",
        "receipt.task.status": "working",
      }),
      followUp(session, "tasks/result", 9_000, {
        "receipt.task.id": "task-7",
        "rpc.response.status_code": -32603,
      }),
    ]);
    expect(later.partialSuccess?.rejectedSpans ?? "0").toBe("0");
    expect((await otlp.chainOf(call)).state).toBe("tool_failed");
    const { rows } = await otlp.query(
      "select body->'call'->'task' as task from health_records r join chains c on c.current_record_id = r.record_id where c.chain_id = $1",
      [`otlp:${call.traceId}:${call.spanId}`],
    );
    expect(rows[0].task).toMatchObject({ id: "task-7", status: "failed", error: { code: -32603 } });
  });

  it("progress notifications sent in a later export are the in-flight call's progress", async () => {
    const session = "sess-progress-follow-ups";
    const traceId = newTrace();
    const call = semconvCall({
      traceId,
      sessionId: session,
      version: "2025-11-25",
      end: null,
      attributes: { "receipt.call.progress_token": 42, "receipt.call.inactivity_ms": 10_000 },
    });
    await otlp.send([...semconvSession({ traceId, sessionId: session, version: "2025-11-25" }), call]);
    // 16 s after the call started, 10 s of inactivity allowed: working only by the notifications' activity.
    await otlp.send([
      followUp(session, "notifications/progress", 8_000, {
        "receipt.progress.token": 42,
        "receipt.progress.value": 1,
      }),
      followUp(session, "notifications/progress", 16_000, {
        "receipt.progress.token": 42,
        "receipt.progress.value": 2,
      }),
    ]);
    const { rows } = await otlp.query(
      "select c.state, r.body->'call'->'progress' as progress from health_records r join chains c on c.current_record_id = r.record_id where c.chain_id = $1",
      [`otlp:${call.traceId}:${call.spanId}`],
    );
    expect(rows[0].state).toBe("working");
    expect(rows[0].progress).toMatchObject([
      { token: 42, progress: 1 },
      { token: 42, progress: 2 },
    ]);
  });
});
