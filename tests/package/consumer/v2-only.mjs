// An agent with SDK 2.x only (no @modelcontextprotocol/sdk installed): the collector must import,
// run SDK 2.x sessions, and say clearly that SDK 1.x sessions need SDK 1.x. Prints one JSON line.
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createCollector, MemorySink } from "@receipt/collector";

const sink = new MemorySink();
const receipt = createCollector({ sink, clientInfo: { name: "v2-only", version: "1.0.0" }, heartbeatMs: 0 });
const transport = () =>
  new StdioClientTransport({ command: process.env.EVERYTHING_BIN, args: ["stdio"], stderr: "ignore" });
const client = await receipt.connectV2(transport());
const echo = await receipt.callTool(client, {
  name: "echo",
  arguments: { message: "v2 only" },
  sideEffect: "none",
  deadlineMs: 10_000,
});
await client.close();
const v1Error = await receipt.connect(transport()).then(
  () => "connected",
  (error) => error.message,
);
console.log(JSON.stringify({ record: echo.record, state: receipt.classify(echo.record), v1Error }));
