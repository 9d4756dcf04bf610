// Type-checked only (never run), beside SDK 1.x alone and with `skipLibCheck: false`: the `/v1` entry gives
// `createCollector` SDK 1.x's own types, and the main entry's structural types accept SDK 1.x's objects.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as main from "@receipt/collector";
import { type CollectorV1, createCollector, MemorySink, type ToolResult } from "@receipt/collector/v1";

export async function typedV1(command: string): Promise<string[]> {
  const receipt: CollectorV1 = createCollector({
    sink: new MemorySink(),
    clientInfo: { name: "typed-v1", version: "1.0.0" },
    capabilities: { roots: { listChanged: true } },
  });
  const http: StreamableHTTPClientTransport = receipt.streamableHttp("http://127.0.0.1:1/mcp");
  const client: Client = await receipt.connect(new StdioClientTransport({ command }));
  const version = client.getServerVersion()?.name;
  const report = await receipt.callTool(client, {
    name: "echo",
    arguments: { message: "hi" },
    deadlineMs: 5_000,
  });
  const result: ToolResult | undefined = report.result;
  // The main entry: no SDK type in its .d.ts, yet it takes SDK 1.x's transports and clients as they are.
  const plain = main.createCollector({ sink: new MemorySink(), clientInfo: { name: "plain", version: "1" } });
  const plainClient = await plain.connect(http);
  await plain.callTool(plainClient, { name: "echo", deadlineMs: 5_000 });
  await plainClient.close();
  return [version ?? "", String(result?.isError)];
}
