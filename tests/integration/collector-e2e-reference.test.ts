import { createHash } from "node:crypto";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CollectorV1 as Collector,
  createCollector,
  fileHashVerifier,
} from "@/packages/collector/src/v1";
import { EVERYTHING_BIN, FILESYSTEM_BIN, sleep, startEverythingHttp, stdio } from "@/tests/collector/helpers";
import { chainId, expectChain, type Receipt, startReceipt } from "./collector-e2e-support";

// Issue 7's cases against the reference servers nobody here wrote, end to end: collector → ReceiptSink →
// POST /api/v1/records on a running Receipt → PostgreSQL → GET /api/v1/chains/{id}: state and deciding reason.
let receipt: Receipt;
let collector: Collector;
let dir: string;
let filesystem: Client;
let everything: Client;

beforeAll(async () => {
  receipt = await startReceipt();
  collector = createCollector({
    sink: receipt.sink,
    clientInfo: { name: "collector-e2e", version: "1.0.0" },
    requiredCapabilities: { server: ["tools"] },
    labels: { env: "e2e" },
    heartbeatMs: 0,
  });
  dir = await realpath(await mkdtemp(join(tmpdir(), "receipt-e2e-")));
  [filesystem, everything] = await Promise.all([
    collector.connect(stdio(FILESYSTEM_BIN, [dir])),
    collector.connect(stdio(EVERYTHING_BIN, ["stdio"])),
  ]);
}, 60_000);
afterAll(async () => {
  await filesystem?.close();
  await everything?.close();
  await receipt?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("server-filesystem over stdio", () => {
  const content = "quarterly report v3\n";
  const sha = createHash("sha256").update(content).digest("hex");

  it("write_file whose file hash verifier passes → healthy (outcome.verified)", async () => {
    const path = join(dir, "report.md");
    const report = await collector.callTool(filesystem, {
      chainId: chainId("write-healthy"),
      name: "write_file",
      arguments: { path, content },
      sideEffect: "write",
      deadlineMs: 10_000,
      verifyOutcome: fileHashVerifier(path, sha),
    });
    const detail = await expectChain(receipt, report.chainId, "healthy", "outcome.verified");
    expect(detail.records.map((record) => record.recordId.split(":").pop())).toEqual([
      "start",
      "end",
      "verified",
    ]);
    expect(detail.history.map((change) => change.toState)).toEqual(["working", "unverified", "healthy"]);
    expect(JSON.stringify(detail)).not.toContain("quarterly report");
  });

  it("the same write with a wrong expected hash → false_success (outcome.verifier_failed)", async () => {
    const path = join(dir, "report-2.md");
    const report = await collector.callTool(filesystem, {
      chainId: chainId("write-wrong-hash"),
      name: "write_file",
      arguments: { path, content },
      sideEffect: "write",
      deadlineMs: 10_000,
      verifyOutcome: fileHashVerifier(path, "0".repeat(64)),
    });
    await expectChain(receipt, report.chainId, "false_success", "outcome.verifier_failed");
  });
});

describe("server-everything over stdio", () => {
  it("the long-running tool observed mid-way → working (request.in_flight), then finished", async () => {
    const id = chainId("long-running");
    const running = collector.callTool(everything, {
      chainId: id,
      name: "trigger-long-running-operation",
      // Long enough that reading the chain mid-way ends before the tool does, on a loaded machine too (at 1.5 s a
      // read that took longer saw the finished chain).
      arguments: { duration: 4, steps: 8 },
      sideEffect: "none",
      deadlineMs: 10_000,
      inactivityMs: 2_000,
    });
    await expect.poll(() => collector.latest(id)?.call?.progress.length ?? 0).toBeGreaterThanOrEqual(1);
    await expectChain(receipt, id, "working", "request.in_flight");
    await running;
    await expectChain(receipt, id, "unverified", "outcome.no_receipt");
  });

  it("a deadline shorter than the run → effect_unknown for a write, tool_failed when declared read-only", async () => {
    const call = (name: string, sideEffect: "write" | "none") =>
      collector.callTool(everything, {
        chainId: chainId(name),
        name: "trigger-long-running-operation",
        arguments: { duration: 3, steps: 3 },
        sideEffect,
        deadlineMs: 400,
      });
    const [write, read] = await Promise.all([call("deadline-write", "write"), call("deadline-read", "none")]);
    await expectChain(receipt, write.chainId, "effect_unknown", "effect.unreconciled");
    await expectChain(receipt, read.chainId, "tool_failed", "request.unfinished_read_only");
  });

  it("an unknown tool (answered with isError) → protocol_error (request.unknown_tool)", async () => {
    const report = await collector.callTool(everything, {
      chainId: chainId("unknown-tool"),
      name: "no-such-tool",
      arguments: {},
      deadlineMs: 5_000,
    });
    await expectChain(receipt, report.chainId, "protocol_error", "request.unknown_tool");
  });

  it("a tool returning isError → tool_failed (request.tool_error)", async () => {
    const report = await collector.callTool(everything, {
      chainId: chainId("tool-error"),
      name: "get-sum",
      arguments: { a: "one", b: 2 },
      sideEffect: "none",
      deadlineMs: 5_000,
    });
    await expectChain(receipt, report.chainId, "tool_failed", "request.tool_error");
  });

  it("simulate-research-query observed while running → working (task.working), then completed", async () => {
    const id = chainId("task");
    const running = collector.callTool(everything, {
      chainId: id,
      name: "simulate-research-query",
      arguments: { topic: "tides" },
      sideEffect: "none",
      deadlineMs: 20_000,
      inactivityMs: 5_000,
    });
    await expect.poll(() => collector.latest(id)?.call?.task?.status, { timeout: 10_000 }).toBe("working");
    await expectChain(receipt, id, "working", "task.working");
    const report = await running;
    expect(report.record.call?.task?.status).toBe("completed");
    const detail = await expectChain(receipt, id, "unverified", "outcome.no_receipt");
    // The stored chain keeps the evidence of the wait: a record decided by task.working.
    expect(detail.records.map((record) => record.reasons[0])).toContain("task.working");
  });
});

describe("server-everything over Streamable HTTP on 127.0.0.1", () => {
  it("progress over HTTP observed mid-way → working; a deadline shorter than the run → effect_unknown", async () => {
    const server = await startEverythingHttp();
    const client = await collector.connect(collector.streamableHttp(server.url));
    try {
      const id = chainId("http-progress");
      const running = collector.callTool(client, {
        chainId: id,
        name: "trigger-long-running-operation",
        arguments: { duration: 4, steps: 8 },
        sideEffect: "write",
        // Far enough from the mid-way read that Receipt's deadline worker (1 s tick) cannot get there first.
        deadlineMs: 2_500,
      });
      await sleep(700);
      await expectChain(receipt, id, "working", "request.in_flight");
      await running;
      await expectChain(receipt, id, "effect_unknown", "effect.unreconciled");
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
