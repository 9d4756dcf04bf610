import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollector, MemorySink, RetryRefusedError } from "@/packages/collector/src";
import { EVERYTHING_BIN, expectState, expectValid, sleep, stdio } from "./helpers";

// The reference server nobody here wrote, spawned over stdio.
describe("server-everything over stdio", () => {
  const sink = new MemorySink();
  const receipt = createCollector({
    sink,
    clientInfo: { name: "collector-test", version: "1.0.0" },
    requiredCapabilities: { server: ["tools", "tasks.requests.tools.call"] },
    heartbeatMs: 0,
  });
  let client: Client;

  beforeAll(async () => {
    client = await receipt.connect(stdio(EVERYTHING_BIN, ["stdio"]));
  });
  afterAll(async () => {
    await client?.close();
  });

  it("records the session from the wire: versions, initialized, capabilities as dotted paths", async () => {
    const report = await receipt.callTool(client, {
      name: "echo",
      arguments: { message: "hi" },
      sideEffect: "none",
      deadlineMs: 5_000,
    });
    expectValid(report.records);
    const { session, catalog, call } = report.record;
    expect(session.protocol).toMatchObject({
      era: "legacy",
      requestedVersion: "2025-11-25",
      acceptedVersion: "2025-11-25",
    });
    expect(session.protocol.clientSupportedVersions).toContain("2025-06-18");
    expect(session.protocol.initializedAt).toBeDefined();
    expect(session.server?.name).toBe("mcp-servers/everything");
    expect(session.capabilities.server).toEqual(
      expect.arrayContaining(["tools", "tools.listChanged", "tasks.requests.tools.call"]),
    );
    expect(catalog).toMatchObject({ pages: 1, complete: true, toolCount: 13 });
    expect(catalog?.schemaHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(call).toMatchObject({
      requestId: expect.any(Number),
      progressToken: call?.requestId,
      response: { kind: "result", isError: false },
    });
    // No verifier declared: quiet, not green.
    expectState(report.record, "unverified", "outcome.no_receipt");
    // A read-only call may be repeated.
    expect(receipt.assertRetrySafe(report).retrySafe).toBe(true);
  });

  it("list_changed right after initialize → one re-discovery; the chain is not stale", async () => {
    const { catalog, refreshes } = receipt.catalogState(client);
    expect(catalog?.listChangedAt.length).toBeGreaterThanOrEqual(1);
    // The notification arrived while the first read was in flight: one bounded re-discovery followed.
    expect(refreshes).toBe(2);
    expect(Date.parse(catalog?.refreshedAt ?? "")).toBeGreaterThan(
      Date.parse(catalog?.listChangedAt.at(-1) ?? ""),
    );
  });

  it("long-running tool with progress, observed mid-way → working", async () => {
    const running = receipt.callTool(client, {
      name: "trigger-long-running-operation",
      arguments: { duration: 1.2, steps: 4 },
      sideEffect: "none",
      deadlineMs: 10_000,
      inactivityMs: 2_000,
    });
    await sleep(700);
    const midway = sink.records
      .filter((record) => record.call?.tool === "trigger-long-running-operation")
      .at(-1);
    expect(midway?.call?.progress.length).toBeGreaterThanOrEqual(1);
    const verdict = expectState(midway, "working", "request.in_flight");
    expect(verdict.nextCheckAt).toBeDefined();
    const report = await running;
    expectValid(report.records);
    expect(report.record.call?.progress.map((entry) => entry.progress)).toEqual([1, 2, 3, 4]);
    expect(report.record.call?.progress[0]).toMatchObject({ token: report.requestId, total: 4 });
    expectState(report.record, "unverified", "outcome.no_receipt");
  });

  it("deadline shorter than the run → effect_unknown for a write, tool_failed when read-only", async () => {
    const write = await receipt.callTool(client, {
      name: "trigger-long-running-operation",
      arguments: { duration: 3, steps: 3 },
      sideEffect: "write",
      deadlineMs: 400,
    });
    expect(write.expired).toBe("deadline");
    expectValid(write.records);
    expect(write.record.call?.response).toBeUndefined(); // the SDK's -32001 is no response
    // The collector's own clock, not a caller's cancel: recorded by its times (stop-reasons.test.ts).
    expect(write.record.call?.cancelledAt).toBeUndefined();
    const verdict = expectState(write.record, "effect_unknown", "effect.unreconciled");
    expect(verdict.reasons).toContain("request.deadline_exceeded");
    // Effect unknown blocks automatic retry.
    expect(() => receipt.assertRetrySafe(write)).toThrow(RetryRefusedError);
    await expect(
      receipt.callTool(client, {
        name: "echo",
        arguments: { message: "again" },
        deadlineMs: 1_000,
        retryOf: write.chainId,
      }),
    ).rejects.toBeInstanceOf(RetryRefusedError);

    const read = await receipt.callTool(client, {
      name: "trigger-long-running-operation",
      arguments: { duration: 3, steps: 3 },
      sideEffect: "none",
      deadlineMs: 400,
    });
    expectState(read.record, "tool_failed", "request.unfinished_read_only");
  });

  it("inactivity window without progress → stopped by the collector's own clock", async () => {
    const report = await receipt.callTool(client, {
      name: "trigger-long-running-operation",
      arguments: { duration: 2, steps: 1 },
      sideEffect: "none",
      deadlineMs: 5_000,
      inactivityMs: 300,
    });
    expect(report.expired).toBe("inactivity");
    expectState(report.record, "tool_failed", "request.unfinished_read_only");
  });

  it("unknown tool → protocol_error / request.unknown_tool (server answers isError)", async () => {
    const report = await receipt.callTool(client, { name: "no-such-tool", arguments: {}, deadlineMs: 5_000 });
    expectValid(report.records);
    expect(report.record.call).toMatchObject({
      inCatalog: false,
      response: { kind: "result", isError: true },
    });
    const verdict = expectState(report.record, "protocol_error", "request.unknown_tool");
    expect(verdict.retrySafe).toBe(true);
  });

  it("a tool returning isError → tool_failed", async () => {
    const report = await receipt.callTool(client, {
      name: "get-sum",
      arguments: { a: "one", b: 2 },
      sideEffect: "none",
      deadlineMs: 5_000,
    });
    expectValid(report.records);
    expect(report.record.call).toMatchObject({
      inCatalog: true,
      response: { kind: "result", isError: true },
    });
    expectState(report.record, "tool_failed", "request.tool_error");
  });

  it("simulate-research-query (task) observed running → working (task.working), then completed", async () => {
    const report = await receipt.callTool(client, {
      name: "simulate-research-query",
      arguments: { topic: "tides" },
      sideEffect: "none",
      deadlineMs: 20_000,
      inactivityMs: 5_000,
    });
    expectValid(report.records);
    const running = report.records.find((record) => record.call?.task?.status === "working");
    expect(running?.call).toMatchObject({ response: { kind: "result", resultType: "task" } });
    expectState(running, "working", "task.working");
    const last = report.record.call;
    expect(last?.task).toMatchObject({ status: "completed", result: { isError: false } });
    expect(last?.task?.polledAt).toBeDefined();
    expect(Date.parse(last?.task?.updatedAt ?? "")).toBeLessThanOrEqual(
      Date.parse(last?.task?.polledAt ?? ""),
    );
    expectState(report.record, "unverified", "outcome.no_receipt");
    expect(JSON.stringify(report.records)).not.toContain("tides");
  });

  it("a task past its deadline is cancelled (tasks/cancel) → effect_unknown for a write", async () => {
    const report = await receipt.callTool(client, {
      name: "simulate-research-query",
      arguments: { topic: "currents" },
      sideEffect: "write",
      deadlineMs: 1_200,
    });
    expect(report.expired).toBe("deadline");
    expectValid(report.records);
    expect(report.record.call?.task?.status).toBe("cancelled");
    const verdict = expectState(report.record, "effect_unknown", "effect.unreconciled");
    // The server's own answer to tasks/cancel is evidence the contract reads first.
    expect(verdict.reasons).toContain("task.cancelled");
  });
});
