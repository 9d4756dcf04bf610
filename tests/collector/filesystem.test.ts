import { createHash } from "node:crypto";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createCollector,
  fileEffect,
  fileHashVerifier,
  MemorySink,
  RetryRefusedError,
} from "@/packages/collector/src";
import { expectState, expectValid, FILESYSTEM_BIN, stdio } from "./helpers";

// server-filesystem's write_file is a real side effect: the verifier reads the file back and hashes it.
describe("server-filesystem over stdio", () => {
  const sink = new MemorySink();
  const receipt = createCollector({
    sink,
    clientInfo: { name: "collector-test", version: "1.0.0" },
    requiredCapabilities: { server: ["tools"] },
    labels: { env: "test", agent: "filesystem" },
  });
  let dir: string;
  let client: Client;

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), "receipt-fs-")));
    client = await receipt.connect(stdio(FILESYSTEM_BIN, [dir]));
  });
  afterAll(async () => {
    await client?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const content = "quarterly report v3\n";
  const sha = createHash("sha256").update(content).digest("hex");

  it("write_file whose file hash verifier passes → healthy", async () => {
    const path = join(dir, "report.txt");
    const report = await receipt.callTool(client, {
      name: "write_file",
      arguments: { path, content },
      sideEffect: "write",
      operationKey: "report-q3",
      deadlineMs: 10_000,
      verifyEffect: fileEffect(path),
      verifyOutcome: fileHashVerifier(path, sha),
    });
    expect(report.result?.isError).toBeFalsy();
    expectValid(report.records);
    expect(report.records.map((record) => record.recordId.split(":").pop())).toEqual([
      "start",
      "end",
      "verified",
    ]);
    expectState(report.records[0], "working", "request.in_flight");
    const verdict = expectState(report.record, "healthy", "outcome.verified");
    expect(verdict.evidence).toBe("strong");
    expect(report.record.call).toMatchObject({
      tool: "write_file",
      inCatalog: true,
      expectedVerifier: "file_hash",
      outcome: { verdict: "pass", receipt: `sha256:${sha}` },
      effect: { status: "committed" },
    });
    expect(report.record.session).toMatchObject({
      transport: "stdio",
      protocol: { acceptedVersion: "2025-11-25" },
    });
    // Redaction by construction: neither the argument nor the content is anywhere in the records.
    expect(JSON.stringify(sink.chain(report.chainId))).not.toContain("quarterly report");
    // A successful write is not retry-safe: the guard refuses to repeat it.
    expect(() => receipt.assertRetrySafe(report)).toThrow(RetryRefusedError);
  });

  it("the same write with a wrong expected hash → false_success", async () => {
    const path = join(dir, "report-2.txt");
    const report = await receipt.callTool(client, {
      name: "write_file",
      arguments: { path, content },
      sideEffect: "write",
      deadlineMs: 10_000,
      verifyOutcome: fileHashVerifier(path, "0".repeat(64)),
    });
    expectValid(report.records);
    expectState(report.record, "false_success", "outcome.verifier_failed");
  });
});
