// Type-checked only (never run), beside SDK 2.x alone (no @modelcontextprotocol/sdk) and with
// `skipLibCheck: false`: the `/v2` entry gives `createCollector` SDK 2.x's own types, and the main entry
// compiles without SDK 1.x and takes SDK 2.x's objects.
import type { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import * as main from "@receipt/collector";
import { type CollectorV2, createCollector, MemorySink } from "@receipt/collector/v2";

export async function typedV2(command: string): Promise<string[]> {
  const receipt: CollectorV2 = createCollector({
    sink: new MemorySink(),
    clientInfo: { name: "typed-v2", version: "1.0.0" },
  });
  const http: StreamableHTTPClientTransport = receipt.streamableHttpV2("http://127.0.0.1:1/mcp");
  const client: Client = await receipt.connectV2(new StdioClientTransport({ command }), {
    clientOptions: { versionNegotiation: { mode: "auto" } },
  });
  const report = await receipt.callTool(client, {
    name: "echo",
    arguments: { message: "hi" },
    deadlineMs: 5_000,
  });
  const plain = main.createCollector({ sink: new MemorySink(), clientInfo: { name: "plain", version: "1" } });
  const plainClient = await plain.connectV2(http, {
    clientOptions: { versionNegotiation: { mode: "legacy" } },
  });
  await plain.callTool(plainClient, { name: "echo", deadlineMs: 5_000 });
  await plainClient.close();
  return [client.getServerVersion()?.name ?? "", String(report.result?.isError)];
}
