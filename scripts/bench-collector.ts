/**
 * What the collector costs an agent's tool call (issue 19): `npm run bench:collector`.
 *
 * The same `echo` tool called through the bare SDK 1.x client and through `receipt.callTool`, one call at a time:
 * - in-process: an SDK `McpServer` over the SDK's `InMemoryTransport`, so the figures are the client's and the
 *   collector's own work (the server's runs in the same thread, the same in every variant);
 * - stdio: server-everything in its own process (`BENCH_STDIO=0` skips it), as an agent would run a server.
 * Wrapped variants: a sink that drops the records (the wrap alone), and the real `ReceiptSink` posting to a receiver
 * in another process (checks, serialisation and HTTP included, all off the call path but in the agent's CPU).
 * Latency: the variants' calls interleaved one by one, `BENCH_ROUNDS` rounds of `BENCH_CALLS` calls a variant; CPU:
 * a block of `BENCH_CALLS` calls of each variant a round (`process.cpuUsage`, user + system). Three repetitions; the
 * median of each figure: call latency p50 / p99 and the agent's CPU per call.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import {
  type CollectorRecord,
  createCollector,
  MemorySink,
  ReceiptSink,
  type RecordSink,
} from "../packages/collector/src";

const CALLS = Number(process.env.BENCH_CALLS ?? "1000");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? "5");
const REPETITIONS = 3;
const WARMUP = 300;
const CLIENT_INFO = { name: "bench-collector", version: "1.0.0" };

type Call = (i: number) => Promise<unknown>;
type Variant = { name: string; call: Call; close: () => Promise<void> };
type Figures = { p50: number; p99: number; cpuUs: number };

class DroppingSink implements RecordSink {
  submitted = 0;
  submit(records: readonly CollectorRecord[]): void {
    this.submitted += records.length;
  }
  async flush() {
    return { delivered: 0, failed: [], results: [], masked: [], pending: 0 };
  }
}

function inProcessServer(): Transport {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("echo", { inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: "text" as const, text: message }],
  }));
  void server.connect(serverSide);
  return clientSide;
}

function everythingOverStdio(): Transport {
  return new StdioClientTransport({
    command: resolve("node_modules/.bin/mcp-server-everything"),
    args: ["stdio"],
    stderr: "ignore",
  });
}

const args = (i: number) => ({ message: `call ${i}` });

async function bare(name: string, transport: Transport): Promise<Variant> {
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return {
    name,
    call: (i) => client.callTool({ name: "echo", arguments: args(i) }),
    close: () => client.close(),
  };
}

async function wrapped(name: string, transport: Transport, sink: RecordSink): Promise<Variant> {
  const receipt = createCollector({ sink, clientInfo: CLIENT_INFO });
  const client = await receipt.connect(transport);
  return {
    name,
    call: (i) =>
      receipt.callTool(client, { name: "echo", arguments: args(i), sideEffect: "none", deadlineMs: 30_000 }),
    close: () => client.close(),
  };
}

/** A Receipt stand-in in its own process: answers every POST with 200, so its CPU is not the agent's. */
async function startReceiver(): Promise<{ url: string; child: ChildProcess }> {
  const code = `
    const http = require("node:http");
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"results":[]}'));
    });
    server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((done) =>
    child.stdout?.once("data", (d: Buffer) => done(d.toString())),
  );
  return { url: `http://127.0.0.1:${port.trim()}`, child };
}

/** The agent's CPU a call of one variant, over a block of its calls (CPU cannot be told apart call by call). */
async function cpuPerCall(variant: Variant, offset: number): Promise<number> {
  const cpu = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await variant.call(offset + i);
  // Let the sink's deferred work (checks, serialisation, POSTs) run inside the measured CPU.
  await new Promise((done) => setTimeout(done, 50));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / CALLS;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * Latency with the variants' calls interleaved one by one (the order turning each call), as an agent makes calls
 * among other work: each call runs with whatever the previous one left in the CPU's caches. Calls of one variant
 * in a row run hotter and hid half the wrap's cost (+0.054 ms here against an adopter's +0.18).
 */
async function repetition(variants: Variant[]): Promise<Map<string, Figures>> {
  const latencies = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const cpu = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < CALLS; i++) {
      for (let k = 0; k < variants.length; k++) {
        const variant = variants[(i + k) % variants.length] as Variant;
        const started = performance.now();
        await variant.call(round * CALLS + i);
        latencies.get(variant.name)?.push(performance.now() - started);
      }
    }
    const order = variants.map((_, i) => variants[(i + round) % variants.length] as Variant);
    for (const variant of order) cpu.get(variant.name)?.push(await cpuPerCall(variant, round * CALLS));
  }
  const figures = new Map<string, Figures>();
  for (const variant of variants) {
    const sorted = (latencies.get(variant.name) ?? []).sort((a, b) => a - b);
    figures.set(variant.name, {
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      cpuUs: median(cpu.get(variant.name) ?? []),
    });
  }
  return figures;
}

async function group(title: string, variants: Variant[]): Promise<void> {
  for (const variant of variants) for (let i = 0; i < WARMUP; i++) await variant.call(i);
  const runs: Map<string, Figures>[] = [];
  for (let r = 0; r < REPETITIONS; r++) runs.push(await repetition(variants));
  console.log(
    `\n${title}: ${ROUNDS} rounds × ${CALLS} calls a variant, median of ${REPETITIONS} repetitions`,
  );
  console.log("variant                     p50 ms   p99 ms   CPU µs/call   Δp50 ms   Δp99 ms   ΔCPU µs");
  const base = variants[0]?.name ?? "";
  const pick = (name: string, key: keyof Figures) => median(runs.map((run) => run.get(name)?.[key] ?? 0));
  for (const variant of variants) {
    const row = (key: keyof Figures) => pick(variant.name, key);
    const delta = (key: keyof Figures) => row(key) - pick(base, key);
    console.log(
      [
        variant.name.padEnd(26),
        row("p50").toFixed(3).padStart(7),
        row("p99").toFixed(3).padStart(8),
        row("cpuUs").toFixed(1).padStart(13),
        delta("p50").toFixed(3).padStart(9),
        delta("p99").toFixed(3).padStart(9),
        delta("cpuUs").toFixed(1).padStart(9),
      ].join(" "),
    );
  }
  for (const variant of variants) await variant.close();
}

const receiver = await startReceiver();
try {
  console.log(`node ${process.version}, load average ${(await import("node:os")).loadavg()[0]?.toFixed(2)}`);
  await group("in-process server (InMemoryTransport)", [
    await bare("bare SDK", inProcessServer()),
    await wrapped("wrapped, dropping sink", inProcessServer(), new DroppingSink()),
    await wrapped(
      "wrapped, ReceiptSink",
      inProcessServer(),
      new ReceiptSink({ baseUrl: receiver.url, ingestionKey: "rk_bench", flushIntervalMs: 100 }),
    ),
  ]);
  if (process.env.BENCH_STDIO !== "0")
    await group("server-everything over stdio", [
      await bare("bare SDK", everythingOverStdio()),
      await wrapped("wrapped, dropping sink", everythingOverStdio(), new DroppingSink()),
      await wrapped("wrapped, MemorySink", everythingOverStdio(), new MemorySink()),
    ]);
} finally {
  receiver.child.kill();
}
