import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Collector,
  type CollectorRecord,
  createCollector,
  DeliveryError,
  MASKED_VALUE,
} from "@/packages/collector/src";
import { EVERYTHING_BIN, fixtureServer, stdio } from "@/tests/collector/helpers";
import { SAMPLES } from "@/tests/support/secret-samples";
import { type ChainDetail, chainId, type Receipt, startReceipt } from "./collector-e2e-support";

// Issue 19 items 4 and 5 end to end: the collector's sink against a running Receipt (production build, its own
// PostgreSQL database); every assertion is about what Receipt stored and decided, read back from its API.
const TOKEN = SAMPLES.github_token[0] as string;
let receipt: Receipt;
let collector: Collector;
let healthy: Client;

beforeAll(async () => {
  receipt = await startReceipt();
  collector = createCollector({
    sink: receipt.sink,
    clientInfo: { name: "collector-e2e", version: "1.0.0" },
  });
  healthy = await collector.connect(fixtureServer());
}, 60_000);
afterAll(async () => {
  await healthy?.close();
  await receipt?.stop();
});

const bodies = (detail: ChainDetail) => detail.records.map((record) => record.body as CollectorRecord);

describe("one bad record never loses others", () => {
  it("a server version that looks like a token is masked; its chain and an unrelated healthy session's are stored", async () => {
    const leaky = await collector.connect(fixtureServer({ SERVER_VERSION: TOKEN }));
    try {
      const a = await collector.callTool(leaky, {
        name: "tool-1",
        arguments: { n: 1 },
        deadlineMs: 10_000,
        chainId: chainId("leaky-version"),
      });
      const b = await collector.callTool(healthy, {
        name: "tool-2",
        arguments: { n: 2 },
        deadlineMs: 10_000,
        chainId: chainId("healthy-beside"),
      });
      const report = await receipt.sink.flush();
      expect(report.failed).toEqual([]);
      expect(report.masked).toContainEqual({
        recordId: a.record.recordId,
        path: "$.session.server.version",
        code: "secret_masked",
      });
      const leakyChain = await receipt.chain(a.chainId);
      expect(leakyChain.records.map((r) => r.recordId).sort()).toEqual(
        a.records.map((r) => r.recordId).sort(),
      );
      for (const body of bodies(leakyChain)) expect(body.session.server?.version).toBe(MASKED_VALUE);
      expect(JSON.stringify(leakyChain)).not.toContain(TOKEN);
      const healthyChain = await receipt.chain(b.chainId);
      expect(healthyChain.chain.state).toBe("unverified");
      expect(healthyChain.records).toHaveLength(b.records.length);
    } finally {
      await leaky.close();
    }
  });

  it("Receipt's 409 names the conflicting record: it is dropped and reported, the rest of the batch is stored", async () => {
    const first = await collector.callTool(healthy, {
      name: "tool-1",
      arguments: { n: 1 },
      deadlineMs: 10_000,
      chainId: chainId("stored-first"),
    });
    await receipt.sink.flush();
    // The same recordId with other content (a replay that changed), in one batch with a new session's call.
    const changed = { ...first.record, labels: { changed: "yes" } };
    receipt.sink.submit([changed]);
    const next = await collector.callTool(healthy, {
      name: "tool-3",
      arguments: { n: 3 },
      deadlineMs: 10_000,
      chainId: chainId("beside-conflict"),
    });
    const error = (await receipt.sink.flush().catch((e: unknown) => e)) as DeliveryError;
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error.report.failed).toEqual([
      {
        kind: "rejected",
        recordIds: [first.record.recordId],
        count: 1,
        status: 409,
        code: "record_conflict",
        issues: [{ path: "$.recordId", code: "record_conflict" }],
        attempts: 1,
      },
    ]);
    expect(error.report.delivered).toBe(next.records.length);
    const stored = await receipt.chain(next.chainId);
    expect(stored.records).toHaveLength(next.records.length);
    const original = await receipt.chain(first.chainId);
    expect(bodies(original).every((body) => body.labels === undefined)).toBe(true);
  });
});

describe("reasons that say what happened, as Receipt stores them", () => {
  it("a collector deadline, an inactivity timeout and a caller's abort: three reasons", async () => {
    const everything = await collector.connect(stdio(EVERYTHING_BIN, ["stdio"]));
    try {
      const write = (steps: number) => ({
        name: "trigger-long-running-operation",
        arguments: { duration: 3, steps },
        sideEffect: "write" as const,
      });
      const caller = new AbortController();
      setTimeout(() => caller.abort(), 400);
      const reports = await Promise.all([
        collector.callTool(everything, { ...write(6), deadlineMs: 700, chainId: chainId("deadline") }),
        collector.callTool(everything, {
          ...write(1),
          deadlineMs: 10_000,
          inactivityMs: 300,
          chainId: chainId("inactive"),
        }),
        collector.callTool(everything, {
          ...write(6),
          deadlineMs: 10_000,
          signal: caller.signal,
          chainId: chainId("aborted"),
        }),
      ]);
      const stored = [];
      for (const report of reports) stored.push((await receipt.chain(report.chainId)).chain);
      expect(stored.map((chain) => [chain.state, chain.reasons[0], chain.reasons[1]])).toEqual([
        ["effect_unknown", "effect.unreconciled", "request.deadline_exceeded"],
        ["effect_unknown", "effect.unreconciled", "request.inactive"],
        ["effect_unknown", "effect.unreconciled", "request.cancelled"],
      ]);
    } finally {
      await everything.close();
    }
  });
});
