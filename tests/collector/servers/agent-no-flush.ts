// An agent process for exit-flush.test.ts: CALLS echo calls to server-everything through the collector, then it
// closes the MCP client and returns from main without flush() or close(), as many agents do. Its collector must
// still deliver what it holds (a flush when the event loop runs dry) or say on stderr what it could not.
import { resolve } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createCollector, ReceiptSink } from "@/packages/collector/src";

const sink = new ReceiptSink({
  baseUrl: process.env.RECEIPT_URL ?? "",
  ingestionKey: "rk_agent_test",
  flushTimeoutMs: Number(process.env.FLUSH_TIMEOUT_MS ?? "2000"),
  requestTimeoutMs: 1_000,
  maxAttempts: 2,
  baseDelayMs: 50,
  // Never on its own: only full batches go out in the background, so the exit flush has the rest to send.
  flushIntervalMs: 0,
  flushOnExit: process.env.FLUSH_ON_EXIT !== "0",
});
const receipt = createCollector({ sink, clientInfo: { name: "agent-no-flush", version: "1.0.0" } });
const client = await receipt.connect(
  new StdioClientTransport({
    command: resolve("node_modules/.bin/mcp-server-everything"),
    args: ["stdio"],
    stderr: "ignore",
  }),
);
const calls = Number(process.env.CALLS ?? "20");
for (let i = 0; i < calls; i++)
  await receipt.callTool(client, { name: "echo", arguments: { message: `m${i}` }, deadlineMs: 5_000 });
await client.close();
console.log(JSON.stringify({ pendingAtReturn: sink.pending }));
