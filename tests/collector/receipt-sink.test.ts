import { afterEach, describe, expect, it } from "vitest";
import { type CollectorRecord, DeliveryError, ReceiptSink } from "@/packages/collector/src";
import { localHttp } from "./helpers";

const record = (n: number): CollectorRecord => ({
  schemaVersion: 1,
  recordId: `chain-${n}:start`,
  chainId: `chain-${n}`,
  observedAt: new Date(0).toISOString(),
  session: {
    id: "session-1",
    client: { name: "t", version: "1" },
    transport: "stdio",
    protocol: { era: "legacy", requestedVersion: "2025-11-25", clientSupportedVersions: ["2025-11-25"] },
    capabilities: { server: [], client: [], required: { server: [], client: [] } },
  },
});

describe("ReceiptSink against a local receiver", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** A receiver answering with the given statuses in turn (then 200), recording what it got. */
  async function receiver(statuses: number[]) {
    const seen: { auth?: string; path?: string; records: CollectorRecord[] }[] = [];
    const server = await localHttp((req, res, body) => {
      const parsed = JSON.parse(body) as { records: CollectorRecord[] };
      seen.push({ auth: req.headers.authorization, path: req.url, records: parsed.records });
      const status = statuses.shift() ?? 200;
      res.writeHead(status, { "content-type": "application/json" });
      if (status === 200)
        res.end(
          JSON.stringify({
            results: parsed.records.map((r) => ({ recordId: r.recordId, duplicate: false })),
          }),
        );
      else res.end(JSON.stringify({ error: { code: status === 422 ? "invalid_records" : "internal" } }));
    });
    closers.push(server.close);
    return { url: server.url, seen };
  }
  const options = { ingestionKey: "rk_test_key", baseDelayMs: 10, maxDelayMs: 50, flushIntervalMs: 0 };

  it("500 then 200 → delivered once, with the key and the batch body", async () => {
    const { url, seen } = await receiver([500]);
    const sink = new ReceiptSink({ ...options, baseUrl: url });
    sink.submit([record(1), record(2)]);
    const report = await sink.flush();
    expect(report.delivered).toBe(2);
    expect(report.results.map((r) => r.recordId)).toEqual(["chain-1:start", "chain-2:start"]);
    expect(seen).toHaveLength(2); // one failed attempt, one delivery
    expect(seen[1]).toMatchObject({ auth: "Bearer rk_test_key", path: "/api/v1/records" });
    expect(seen[1]?.records.map((r) => r.recordId)).toEqual(["chain-1:start", "chain-2:start"]);
    expect(sink.pending).toBe(0);
  });

  it("4xx → reported (not retried), flush throws DeliveryError with the server's code", async () => {
    const { url, seen } = await receiver([422]);
    const failures: unknown[] = [];
    const sink = new ReceiptSink({
      ...options,
      baseUrl: `${url}/`,
      onError: (failure) => failures.push(failure),
    });
    sink.submit([record(1)]);
    const error = await sink.flush().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).report.failed).toEqual([
      {
        kind: "rejected",
        recordIds: ["chain-1:start"],
        count: 1,
        status: 422,
        code: "invalid_records",
        attempts: 1,
      },
    ]);
    expect(seen).toHaveLength(1);
    expect((error as Error).message).not.toContain("rk_test_key");
  });

  it("unreachable after the attempts → reported, records kept for the next flush (same recordIds)", async () => {
    const { url, seen } = await receiver([503, 503]);
    const sink = new ReceiptSink({ ...options, baseUrl: url, maxAttempts: 2 });
    sink.submit([record(1)]);
    const error = (await sink.flush().catch((e: unknown) => e)) as DeliveryError;
    expect(error.report.failed[0]).toMatchObject({ kind: "unreachable", status: 503, attempts: 2 });
    expect(sink.pending).toBe(1);
    const report = await sink.flush();
    expect(report.delivered).toBe(1);
    expect(seen.map((s) => s.records[0]?.recordId)).toEqual([
      "chain-1:start",
      "chain-1:start",
      "chain-1:start",
    ]);
  });

  it("a network error is retried like a 5xx", async () => {
    const sink = new ReceiptSink({ ...options, baseUrl: "http://127.0.0.1:9", maxAttempts: 2 });
    sink.submit([record(1)]);
    const error = (await sink.flush().catch((e: unknown) => e)) as DeliveryError;
    expect(error.report.failed[0]).toMatchObject({ kind: "unreachable", attempts: 2 });
  });

  it("the buffer is bounded: the oldest are dropped, counted and reported, not swallowed", async () => {
    const { url } = await receiver([]);
    const failures: { kind: string; recordIds: string[] }[] = [];
    const sink = new ReceiptSink({
      ...options,
      baseUrl: url,
      maxBuffer: 3,
      batchSize: 10,
      onError: (f) => failures.push(f),
    });
    sink.submit([record(1), record(2), record(3), record(4), record(5)]);
    const error = (await sink.flush().catch((e: unknown) => e)) as DeliveryError;
    const dropped = { kind: "overflow", recordIds: ["chain-1:start", "chain-2:start"], count: 2 };
    expect(failures).toEqual([dropped]);
    expect(error.report.delivered).toBe(3);
    expect(error.report.failed).toEqual([dropped]);
    expect(sink.counts.dropped).toEqual({ overflow: 2, invalid: 0, rejected: 0 });
    // Reported once: the next flush is clean.
    expect((await sink.flush()).failed).toEqual([]);
  });

  it("full batches are posted in the background without waiting for flush()", async () => {
    const { url, seen } = await receiver([]);
    const sink = new ReceiptSink({ ...options, baseUrl: url, batchSize: 2 });
    sink.submit([record(1), record(2)]);
    await expect.poll(() => seen.length).toBe(1);
    expect(sink.pending).toBe(0);
  });
});

describe("collector → ReceiptSink → receiver", () => {
  it("posts every record of a real session to {baseUrl}/api/v1/records, each valid, none twice", async () => {
    const { createCollector } = await import("@/packages/collector/src");
    const { validateRecord } = await import("@/lib/contract");
    const { fixtureServer } = await import("./helpers");
    const received: unknown[] = [];
    const server = await localHttp((_req, res, body) => {
      received.push(...(JSON.parse(body) as { records: unknown[] }).records);
      res.writeHead(200, { "content-type": "application/json" }).end('{"results":[]}');
    });
    try {
      const sink = new ReceiptSink({ baseUrl: server.url, ingestionKey: "rk_test_key", flushIntervalMs: 0 });
      const receipt = createCollector({
        sink,
        clientInfo: { name: "collector-test", version: "1.0.0" },
        labels: { env: "ci" },
      });
      const client = await receipt.connect(fixtureServer());
      await receipt.callTool(client, {
        name: "tool-1",
        arguments: { n: 1 },
        sideEffect: "none",
        deadlineMs: 5_000,
      });
      await client.close();
      const report = await receipt.flush();
      expect(report.delivered).toBe(2); // start + end
      const ids = received.map((r) => (r as CollectorRecord).recordId);
      expect(new Set(ids).size).toBe(ids.length);
      for (const r of received) expect(validateRecord(r).ok).toBe(true);
      expect((received[0] as CollectorRecord).labels).toEqual({ env: "ci" });
    } finally {
      await server.close();
    }
  }, 30_000);
});
