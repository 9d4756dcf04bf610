// An agent process for receipt-down.test.ts: N calls to server-everything through the collector while Receipt
// (RECEIPT_URL) is unreachable or hangs, then flush() and return from main. It prints one JSON line when it is
// done; the test measures how long the process takes to exit after it.
import { resolve } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createCollector, DeliveryError, ReceiptSink } from "@/packages/collector/src";

const calls = Number(process.env.CALLS ?? "200");
const sink = new ReceiptSink({
  baseUrl: process.env.RECEIPT_URL ?? "",
  ingestionKey: "rk_agent_test",
  maxBuffer: Number(process.env.MAX_BUFFER ?? "100"),
  flushTimeoutMs: Number(process.env.FLUSH_TIMEOUT_MS ?? "2000"),
  requestTimeoutMs: 1_000,
  flushIntervalMs: 200,
});
const receipt = createCollector({ sink, clientInfo: { name: "agent-receipt-down", version: "1.0.0" } });
const client = await receipt.connect(
  new StdioClientTransport({
    command: resolve("node_modules/.bin/mcp-server-everything"),
    args: ["stdio"],
    stderr: "ignore",
  }),
);
const callMs: number[] = [];
for (let i = 0; i < calls; i++) {
  const started = performance.now();
  await receipt.callTool(client, { name: "echo", arguments: { message: `m${i}` }, deadlineMs: 5_000 });
  callMs.push(performance.now() - started);
}
await client.close();
const flushStarted = performance.now();
const report = await receipt.flush().catch((error: unknown) => {
  if (error instanceof DeliveryError) return error.report;
  throw error;
});
const flushMs = performance.now() - flushStarted;
callMs.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    flushMs,
    medianCallMs: callMs[Math.floor(callMs.length / 2)],
    failed: report.failed.map(({ kind, count }) => ({ kind, count })),
    pending: report.pending,
    counts: sink.counts,
    heapUsed: process.memoryUsage().heapUsed,
  }),
);
