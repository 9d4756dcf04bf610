// An adopter's agent, outside the repository: it knows only the installed tarball and its SDK.
// Run by tests/package/pack-install.test.ts after `tsc` emitted it; prints one JSON line.
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CollectorRecord, createCollector, MemorySink } from "@receipt/collector";
// The adopter's own copy of SDK 1.x, a second one beside the copy the collector resolves.
import { Client as OwnClient } from "own-sdk/client/index.js";
import { StdioClientTransport as OwnStdioTransport } from "own-sdk/client/stdio.js";

const server = process.env.EVERYTHING_BIN;
if (!server) throw new Error("EVERYTHING_BIN is not set");

const sink = new MemorySink();
const receipt = createCollector({
  sink,
  clientInfo: { name: "pack-consumer", version: "1.0.0" },
  requiredCapabilities: { server: ["tools"] },
  heartbeatMs: 0,
});

// 1. The SDK copy the collector itself resolves: a plain read-only call.
const client = await receipt.connect(
  new StdioClientTransport({ command: server, args: ["stdio"], stderr: "ignore" }),
);
const echo = await receipt.callTool(client, {
  name: "echo",
  arguments: { message: "hello from the tarball" },
  sideEffect: "none",
  deadlineMs: 10_000,
});
await client.close();

// 2. The adopter's own copy: its client and transport, the server killed in the middle of a write.
const transport = new OwnStdioTransport({ command: server, args: ["stdio"], stderr: "ignore" });
const own = await receipt.connect(transport, {
  client: new OwnClient({ name: "pack-consumer", version: "1.0.0" }),
});
const running = receipt.callTool(own, {
  name: "trigger-long-running-operation",
  arguments: { duration: 30, steps: 30 },
  sideEffect: "write",
  deadlineMs: 60_000,
});
setTimeout(() => {
  if (transport.pid) process.kill(transport.pid, "SIGKILL");
}, 1_000);
const crashStartedAt = Date.now();
const crashed = await running;
const crashMs = Date.now() - crashStartedAt;

const summary = (records: readonly CollectorRecord[]) => records.map((record) => record.chainId);
console.log(
  JSON.stringify({
    echo: { record: echo.record, state: receipt.classify(echo.record), chains: summary(echo.records) },
    crashed: { record: crashed.record, state: receipt.classify(crashed.record), crashMs },
    sunk: sink.records.length,
  }),
);
