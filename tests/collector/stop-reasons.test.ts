import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CallDeadlineError,
  CallInactivityError,
  type CallStoppedError,
  createCollector,
  MemorySink,
} from "@/packages/collector/src/v1";
import { EVERYTHING_BIN, expectState, expectValid, fixtureServer, stdio } from "./helpers";

// Who stopped a call, and whether the server answered, each recorded so the classifier can tell them apart.
describe("reasons that say what happened (server-everything and an erroring server, over stdio)", () => {
  const receipt = createCollector({
    sink: new MemorySink(),
    clientInfo: { name: "collector-test", version: "1.0.0" },
    heartbeatMs: 0,
  });
  let everything: Client;
  let fixture: Client;

  beforeAll(async () => {
    [everything, fixture] = await Promise.all([
      receipt.connect(stdio(EVERYTHING_BIN, ["stdio"])),
      receipt.connect(fixtureServer()),
    ]);
  });
  afterAll(async () => {
    await everything?.close();
    await fixture?.close();
  });

  const longRun = (steps: number) => ({
    name: "trigger-long-running-operation",
    arguments: { duration: 3, steps },
    sideEffect: "write" as const,
  });

  it("the collector's deadline → no response, no cancelledAt, request.deadline_exceeded", async () => {
    const report = await receipt.callTool(everything, { ...longRun(6), deadlineMs: 800 });
    expectValid(report.records);
    expect(report.stoppedBy).toBe("deadline");
    expect(report.error).toBeInstanceOf(CallDeadlineError);
    expect(report.record.call?.progress.length).toBeGreaterThan(0); // it was alive, just too slow
    expect(report.record.call?.response).toBeUndefined();
    expect(report.record.call?.cancelledAt).toBeUndefined();
    const verdict = expectState(report.record, "effect_unknown", "effect.unreconciled");
    expect(verdict.reasons).toContain("request.deadline_exceeded");
    expect(verdict.reasons).not.toContain("request.cancelled");
  });

  it("the inactivity window → request.inactive (the deadline was far)", async () => {
    const report = await receipt.callTool(everything, {
      ...longRun(1),
      deadlineMs: 10_000,
      inactivityMs: 400,
    });
    expectValid(report.records);
    expect(report.stoppedBy).toBe("inactivity");
    expect(report.error).toBeInstanceOf(CallInactivityError);
    expect((report.error as CallStoppedError).limitMs).toBe(400);
    expect(report.record.call?.cancelledAt).toBeUndefined();
    const verdict = expectState(report.record, "effect_unknown", "effect.unreconciled");
    expect(verdict.reasons).toContain("request.inactive");
    expect(verdict.reasons).not.toContain("request.deadline_exceeded");
  });

  it("progress keeps a call alive past its inactivity window: no stop at all", async () => {
    const report = await receipt.callTool(everything, {
      ...longRun(6),
      sideEffect: "none",
      deadlineMs: 10_000,
      inactivityMs: 1_500,
    });
    expect(report.stoppedBy).toBeUndefined();
    expect(report.record.call?.response).toMatchObject({ kind: "result" });
    expectState(report.record, "unverified", "outcome.no_receipt");
  });

  it("the caller's abort → cancelledAt, request.cancelled, the caller's own reason as the error", async () => {
    const caller = new AbortController();
    const reason = new Error("user pressed stop");
    setTimeout(() => caller.abort(reason), 500);
    const report = await receipt.callTool(everything, {
      ...longRun(6),
      deadlineMs: 10_000,
      signal: caller.signal,
    });
    expectValid(report.records);
    expect(report.stoppedBy).toBe("caller");
    expect(report.error).toBe(reason);
    expect(report.record.call?.response).toBeUndefined();
    expect(report.record.call?.cancelledAt).toBeDefined();
    const verdict = expectState(report.record, "effect_unknown", "effect.unreconciled");
    expect(verdict.reasons).toContain("request.cancelled");
    expect(verdict.reasons).not.toContain("request.deadline_exceeded");
  });

  it("a server answering -32001 itself is a server error, not the client-side timeout's no response", async () => {
    const report = await receipt.callTool(fixture, {
      name: "slow-write",
      arguments: { ms: 300, fail: "upstream-timeout" },
      sideEffect: "write",
      deadlineMs: 5_000,
    });
    expectValid(report.records);
    expect(report.stoppedBy).toBeUndefined();
    expect(report.error).toBeDefined(); // the SDK throws McpError(-32001) either way
    expect(report.record.call?.response).toMatchObject({
      kind: "error",
      error: { code: -32001, class: "request_timeout" },
    });
    expect(report.record.call?.cancelledAt).toBeUndefined();
    expectState(report.record, "tool_failed", "request.server_error");
  });

  it("a server's caller-error answer stays a response too (-32602 → protocol_error)", async () => {
    const report = await receipt.callTool(fixture, {
      name: "strict-sum",
      arguments: { a: "one", b: 2 },
      sideEffect: "none",
      deadlineMs: 5_000,
    });
    expect(report.record.call?.response).toMatchObject({ kind: "error", error: { code: -32602 } });
    expect(report.record.call?.cancelledAt).toBeUndefined();
    expectState(report.record, "protocol_error", "request.caller_error");
  });

  it("the three stops of the same write give three different reasons", async () => {
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 400);
    const [deadline, inactive, aborted] = await Promise.all([
      receipt.callTool(everything, { ...longRun(6), deadlineMs: 700 }),
      receipt.callTool(everything, { ...longRun(1), deadlineMs: 10_000, inactivityMs: 300 }),
      receipt.callTool(everything, { ...longRun(6), deadlineMs: 10_000, signal: caller.signal }),
    ]);
    const reasonOf = (record: typeof deadline.record) => receipt.classify(record).reasons[1];
    expect([deadline, inactive, aborted].map((report) => reasonOf(report.record))).toEqual([
      "request.deadline_exceeded",
      "request.inactive",
      "request.cancelled",
    ]);
  });
});
