import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CollectorRecord,
  DeliveryError,
  type DeliveryReport,
  ReceiptSink,
} from "@/packages/collector/src";
import { portOutsideEphemeralRange } from "../support/ports";
import { localHttp } from "./helpers";

const AGENT = resolve("tests/collector/servers/agent-receipt-down.ts");

const record = (n: number): CollectorRecord => ({
  schemaVersion: 1,
  recordId: `down-${n}:start`,
  chainId: `down-${n}`,
  observedAt: new Date().toISOString(),
  session: {
    id: "session-1",
    client: { name: "t", version: "1" },
    transport: "stdio",
    protocol: { era: "legacy", requestedVersion: "2025-11-25", clientSupportedVersions: ["2025-11-25"] },
    capabilities: { server: [], client: [], required: { server: [], client: [] } },
  },
});

type AgentOutput = {
  flushMs: number;
  medianCallMs: number;
  failed: { kind: string; count: number }[];
  pending: number;
  counts: { delivered: number; dropped: { overflow: number }; pending: number };
};

/** Runs the agent in its own node process; resolves with its report and how long it took to exit after it. */
function runAgent(
  receiptUrl: string,
): Promise<{ output: AgentOutput; exitAfterMs: number; code: number | null }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", AGENT], {
      env: { ...process.env, RECEIPT_URL: receiptUrl, CALLS: "200", MAX_BUFFER: "100" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let printedAt: number | undefined;
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (printedAt === undefined && stdout.includes("\n")) printedAt = performance.now();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", fail);
    child.once("exit", (code) => {
      clearTimeout(killer);
      const exitedAt = performance.now();
      if (printedAt === undefined) return fail(new Error(`agent printed nothing (exit ${code}): ${stderr}`));
      done({
        output: JSON.parse(stdout.trim().split("\n")[0] as string) as AgentOutput,
        exitAfterMs: exitedAt - printedAt,
        code,
      });
    });
  });
}

/** An HTTP server that reads every request and never answers. */
async function hangingServer() {
  const held: ServerResponse[] = [];
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    held.push(res);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => held.length,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function expectBoundedAgent(run: Awaited<ReturnType<typeof runAgent>>) {
  const { output } = run;
  expect(run.code).toBe(0);
  // flushTimeoutMs is 2 s in the agent: flush() keeps it (scheduling slack aside) …
  expect(output.flushMs).toBeLessThan(3_000);
  // … and nothing (timer, socket, retry) keeps the process alive after main returned.
  expect(run.exitAfterMs).toBeLessThan(1_000);
  // 200 calls × (start, end): the buffer kept at most 100, the rest dropped oldest first and counted.
  expect(output.pending).toBeLessThanOrEqual(100);
  expect(output.counts.dropped.overflow).toBeGreaterThanOrEqual(300);
  expect(output.counts.dropped.overflow + output.pending + output.counts.delivered).toBe(400);
  const byKind: Record<string, number> = {};
  for (const failure of output.failed) byKind[failure.kind] = (byKind[failure.kind] ?? 0) + failure.count;
  expect(byKind).toEqual({ overflow: output.counts.dropped.overflow, unreachable: output.pending });
}

describe("Receipt down: a real agent process", () => {
  it("Receipt unreachable (nothing listens): flush() within its bound, buffer bounded, drops reported, prompt exit", async () => {
    const run = await runAgent(`http://127.0.0.1:${await portOutsideEphemeralRange()}`);
    expectBoundedAgent(run);
  });

  it("Receipt hangs (accepts, never answers): the same bounds hold", async () => {
    const server = await hangingServer();
    try {
      const run = await runAgent(server.url);
      expectBoundedAgent(run);
      expect(server.requests()).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

describe("ReceiptSink retries as the server says", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** Answers each POST with the next [status, headers] (then 200), noting when each arrived. */
  async function scripted(answers: [number, Record<string, string> | (() => Record<string, string>)][]) {
    const arrivals: number[] = [];
    const server = await localHttp((_req, res, body) => {
      arrivals.push(performance.now());
      const [status, given] = answers.shift() ?? [200, {}];
      const headers = typeof given === "function" ? given() : given;
      const records = (JSON.parse(body) as { records: CollectorRecord[] }).records;
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(
        status === 200
          ? JSON.stringify({ results: records.map((r) => ({ recordId: r.recordId, duplicate: false })) })
          : JSON.stringify({ error: { code: "database_unavailable", message: "later" } }),
      );
    });
    closers.push(server.close);
    const gaps = () => arrivals.slice(1).map((at, i) => at - (arrivals[i] as number));
    return { url: server.url, arrivals, gaps };
  }
  const fast = { ingestionKey: "rk_test_key", baseDelayMs: 20, maxDelayMs: 100, flushIntervalMs: 0 };

  it("503 and 429 with Retry-After: waits as told (not its 20 ms backoff), then delivers", async () => {
    const receiver = await scripted([
      [503, { "retry-after": "1" }],
      [429, () => ({ "retry-after": new Date(Date.now() + 2_000).toUTCString() })],
    ]);
    const sink = new ReceiptSink({ ...fast, baseUrl: receiver.url });
    sink.submit([record(1)]);
    const report = await sink.flush();
    expect(report.delivered).toBe(1);
    const [first, second] = receiver.gaps();
    expect(first).toBeGreaterThanOrEqual(990);
    expect(first).toBeLessThan(1_800); // at most 10 % jitter on top, and a busy machine
    // An HTTP date two seconds ahead, truncated to the second: between one and two seconds.
    expect(second).toBeGreaterThanOrEqual(900);
  });

  it("a Retry-After past maxRetryAfterMs is capped; without one the backoff grows, with jitter", async () => {
    const receiver = await scripted([
      [503, { "retry-after": "3600" }],
      [503, {}],
      [503, {}],
      [502, {}],
    ]);
    const sink = new ReceiptSink({ ...fast, baseUrl: receiver.url, maxRetryAfterMs: 300, maxDelayMs: 1_000 });
    sink.submit([record(1)]);
    const started = performance.now();
    expect((await sink.flush()).delivered).toBe(1);
    expect(performance.now() - started).toBeLessThan(3_000);
    const gaps = receiver.gaps();
    expect(gaps[0]).toBeGreaterThanOrEqual(295);
    expect(gaps[0]).toBeLessThan(1_000);
    // Attempts 2, 3, 4: steps of 40, 80, 160 ms, each waited between half the step and the step.
    expect(gaps[1]).toBeGreaterThanOrEqual(19);
    expect(gaps[2]).toBeGreaterThanOrEqual(39);
    expect(gaps[3]).toBeGreaterThanOrEqual(79);
  });

  it("flush({ timeoutMs }) against a hanging Receipt returns in time; the records stay for the next flush", async () => {
    const server = await hangingServer();
    closers.push(server.close);
    const sink = new ReceiptSink({ ...fast, baseUrl: server.url, requestTimeoutMs: 10_000 });
    sink.submit([record(1), record(2)]);
    const started = performance.now();
    const error = (await sink.flush({ timeoutMs: 500 }).catch((e: unknown) => e)) as DeliveryError;
    expect(performance.now() - started).toBeLessThan(900);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error.report.pending).toBe(2);
    expect(error.report.failed).toMatchObject([
      { kind: "unreachable", recordIds: ["down-1:start", "down-2:start"], count: 2 },
    ]);
    expect(sink.pending).toBe(2);
  });

  it("unreachable, then up: the next flush delivers the same records once", async () => {
    const port = await portOutsideEphemeralRange();
    const sink = new ReceiptSink({ ...fast, baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 2 });
    sink.submit([record(1)]);
    const error = (await sink.flush().catch((e: unknown) => e)) as DeliveryError;
    expect(error.report.failed).toEqual([
      { kind: "unreachable", recordIds: ["down-1:start"], count: 1, attempts: 2 },
    ]);
    const seen: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        seen.push(...(JSON.parse(body) as { records: CollectorRecord[] }).records.map((r) => r.recordId));
        res.writeHead(200, { "content-type": "application/json" }).end('{"results":[]}');
      });
    });
    await new Promise<void>((done) => server.listen(port, "127.0.0.1", done));
    closers.push(() => new Promise((done) => server.close(() => done())));
    const report: DeliveryReport = await sink.flush();
    expect(report).toMatchObject({ delivered: 1, failed: [], pending: 0 });
    expect(seen).toEqual(["down-1:start"]);
  });

  it("a report stays small however much was dropped: ids named up to 1,000, counts exact", async () => {
    const sink = new ReceiptSink({ ...fast, baseUrl: "http://127.0.0.1:9", maxBuffer: 100, maxAttempts: 1 });
    for (let i = 0; i < 3_000; i++) sink.submit([record(i)]);
    const error = (await sink.flush({ timeoutMs: 2_000 }).catch((e: unknown) => e)) as DeliveryError;
    const [overflow, unreachable] = error.report.failed;
    expect(overflow).toMatchObject({ kind: "overflow", count: 2_900 });
    expect(overflow?.recordIds).toHaveLength(1_000);
    expect(overflow?.recordIds[0]).toBe("down-0:start"); // oldest first
    expect(unreachable).toMatchObject({ kind: "unreachable", count: 100 });
    expect(error.report.failed).toHaveLength(2);
    expect(sink.counts).toMatchObject({ pending: 100, dropped: { overflow: 2_900 } });
  });

  it("onError hears of buffer drops together, not once a call: 2,900 drops in one failure", async () => {
    const told: { kind: string; count: number; recordIds: string[] }[] = [];
    const sink = new ReceiptSink({
      ...fast,
      baseUrl: "http://127.0.0.1:9",
      maxBuffer: 100,
      maxAttempts: 1,
      onError: (failure) => told.push(failure),
    });
    for (let i = 0; i < 3_000; i++) sink.submit([record(i)]);
    await sink.flush({ timeoutMs: 2_000 }).catch(() => undefined);
    const overflow = told.filter((failure) => failure.kind === "overflow");
    expect(overflow).toHaveLength(1);
    expect(overflow[0]).toMatchObject({ count: 2_900 });
    expect(overflow[0]?.recordIds).toHaveLength(1_000);
    expect(overflow[0]?.recordIds[0]).toBe("down-0:start");
    // The round of retries that ran out is told once too.
    expect(told.filter((failure) => failure.kind === "unreachable")).toHaveLength(1);
  });

  it("buffer drops between flushes are told within a second, without a flush", async () => {
    const told: { kind: string; count: number }[] = [];
    const sink = new ReceiptSink({
      ...fast,
      baseUrl: "http://127.0.0.1:9",
      maxBuffer: 10,
      flushIntervalMs: 60_000,
      onError: (failure) => told.push(failure),
    });
    for (let i = 0; i < 50; i++) sink.submit([record(i)]);
    expect(told).toEqual([]);
    await new Promise((done) => setTimeout(done, 1_300));
    expect(told).toEqual([expect.objectContaining({ kind: "overflow", count: 40 })]);
    await sink.close({ timeoutMs: 200 }).catch(() => undefined);
  });

  it("the byte bound drops the oldest records too, and counts them", async () => {
    const sink = new ReceiptSink({ ...fast, baseUrl: "http://127.0.0.1:9", maxBufferBytes: 1_500 });
    const size = Buffer.byteLength(JSON.stringify(record(1)));
    sink.submit(Array.from({ length: 10 }, (_, i) => record(i)));
    await new Promise((done) => setImmediate(done));
    const kept = Math.floor(1_500 / size);
    expect(sink.counts).toMatchObject({ pending: kept, dropped: { overflow: 10 - kept } });
    expect(sink.counts.pendingBytes).toBeLessThanOrEqual(1_500);
  });
});
