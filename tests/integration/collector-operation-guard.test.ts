import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CollectorV1 as Collector,
  createCollector,
  GUARD_LABEL,
  MemorySink,
  OperationAlreadyCommittedError,
  OperationGuardUnreachableError,
  OperationInDoubtError,
  OperationInProgressError,
} from "@/packages/collector/src/v1";
import { EVERYTHING_BIN, FILESYSTEM_BIN, stdio } from "@/tests/collector/helpers";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { chainId, expectChain, type Receipt, startReceipt } from "./collector-e2e-support";

// The collector asks Receipt's retry guard before every write with an operationKey: real MCP reference servers,
// a running Receipt, the guard's answers as typed errors, and the server never called unless the guard said proceed.
let receipt: Receipt;
let collector: Collector;
let dir: string;
let filesystem: Client;
let everything: Client;

beforeAll(async () => {
  receipt = await startReceipt();
  collector = createCollector({
    sink: receipt.sink,
    clientInfo: { name: "guard-e2e", version: "1.0.0" },
    heartbeatMs: 0,
    operationGuard: {
      baseUrl: receipt.app.baseUrl,
      ingestionKey: receipt.key,
      holder: "guard-e2e",
      whenUnreachable: "refuse",
    },
  });
  dir = await realpath(await mkdtemp(join(tmpdir(), "receipt-guard-")));
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

const writeReport = (key: string, path: string, id = chainId("guarded-write")) =>
  collector.callTool(filesystem, {
    chainId: id,
    name: "write_file",
    arguments: { path, content: "invoice 42\n" },
    sideEffect: "write",
    operationKey: key,
    deadlineMs: 10_000,
  });

describe("a guarded write", () => {
  it("runs once; the retry gets OperationAlreadyCommittedError with the earlier chain, the file is not written again", async () => {
    const path = join(dir, "invoice-42.md");
    const first = await writeReport("op:invoice-42", path);
    await expectChain(receipt, first.chainId, "unverified", "outcome.no_receipt");
    await rm(path);
    const retryId = chainId("guarded-retry");
    const retry = await writeReport("op:invoice-42", path, retryId).catch((error: unknown) => error);
    expect(retry).toBeInstanceOf(OperationAlreadyCommittedError);
    expect(retry).toMatchObject({ operationKey: "op:invoice-42", chainId: first.chainId });
    expect(existsSync(path)).toBe(false);
    expect(collector.latest(retryId)).toBeUndefined();
  });

  it("a write that timed out is in doubt: OperationInDoubtError names it, the server is not called", async () => {
    const call = (id: string) =>
      collector.callTool(everything, {
        chainId: id,
        name: "trigger-long-running-operation",
        arguments: { duration: 3, steps: 3 },
        sideEffect: "write",
        operationKey: "op:slow-1",
        deadlineMs: 400,
      });
    const first = await call(chainId("slow"));
    await expectChain(receipt, first.chainId, "effect_unknown", "effect.unreconciled");
    const retryId = chainId("slow-retry");
    const retry = await call(retryId).catch((error: unknown) => error);
    expect(retry).toBeInstanceOf(OperationInDoubtError);
    expect((retry as OperationInDoubtError).attempts.map((a) => a.chainId)).toEqual([first.chainId]);
    expect((retry as OperationInDoubtError).page).toBe("/operations/op%3Aslow-1");
    expect(collector.latest(retryId)).toBeUndefined();
  });

  it("another holder's live lease: OperationInProgressError with Retry-After", async () => {
    const granted = await fetch(`${receipt.app.baseUrl}/api/v1/operations/op:held/attempts`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${receipt.key}` },
      body: JSON.stringify({ tool: "write_file", holder: "other-agent", leaseMs: 30_000 }),
    });
    expect(granted.status).toBe(201);
    const path = join(dir, "held.md");
    const error = await writeReport("op:held", path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationInProgressError);
    expect((error as OperationInProgressError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(existsSync(path)).toBe(false);
  });

  it("a read-only call with a key is not guarded, nor is a write without one", async () => {
    const read = await collector.callTool(filesystem, {
      chainId: chainId("read"),
      name: "list_directory",
      arguments: { path: dir },
      sideEffect: "none",
      operationKey: "op:read-only",
      deadlineMs: 10_000,
    });
    expect(read.error).toBeUndefined();
    const response = await fetch(`${receipt.app.baseUrl}/api/v1/operations/op:read-only`, {
      headers: { authorization: `Bearer ${receipt.key}` },
    });
    expect(await response.json()).toMatchObject({ decisions: [] });
  });
});

describe("when Receipt cannot be reached", () => {
  const offline = async (whenUnreachable: "proceed" | "refuse") => {
    const sink = new MemorySink();
    const port = await portOutsideEphemeralRange(); // nothing listens there
    const lonely = createCollector({
      sink,
      clientInfo: { name: "guard-offline", version: "1.0.0" },
      heartbeatMs: 0,
      operationGuard: {
        baseUrl: `http://127.0.0.1:${port}`,
        ingestionKey: "rcpt_unused",
        holder: "offline",
        whenUnreachable,
        timeoutMs: 2_000,
      },
    });
    return { lonely, client: await lonely.connect(stdio(FILESYSTEM_BIN, [dir])) };
  };

  it("refuse: OperationGuardUnreachableError, the write is not sent", async () => {
    const { lonely, client } = await offline("refuse");
    const path = join(dir, "refused.md");
    const error = await lonely
      .callTool(client, {
        name: "write_file",
        arguments: { path, content: "x" },
        sideEffect: "write",
        operationKey: "op:offline-refuse",
        deadlineMs: 10_000,
      })
      .catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(OperationGuardUnreachableError);
    expect(existsSync(path)).toBe(false);
  });

  it("proceed: the write runs and its records carry the receipt.guard label", async () => {
    const { lonely, client } = await offline("proceed");
    const path = join(dir, "unguarded.md");
    const report = await lonely.callTool(client, {
      name: "write_file",
      arguments: { path, content: "x" },
      sideEffect: "write",
      operationKey: "op:offline-proceed",
      deadlineMs: 10_000,
    });
    await client.close();
    expect(existsSync(path)).toBe(true);
    expect(report.records.every((record) => record.labels?.[GUARD_LABEL] === "unreachable_proceeded")).toBe(
      true,
    );
  });
});
