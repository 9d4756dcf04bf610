/**
 * A small MCP server built with the official SDK's McpServer, for the cases the reference
 * servers cannot produce: a tools/list over several pages, a JSON-RPC -32602, and a
 * list_changed sent well after the client read the catalog. Run over stdio through tsx.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ListToolsResult,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const pageSize = Number(process.env.PAGE_SIZE ?? "0"); // 0 = no pagination
// SERVER_INFO_JSON: a serverInfo object as JSON, for names an environment variable cannot hold (a NUL).
const serverInfo = process.env.SERVER_INFO_JSON
  ? (JSON.parse(process.env.SERVER_INFO_JSON) as { name: string; version: string })
  : { name: "receipt-fixture", version: process.env.SERVER_VERSION ?? "0.1.0" };
const mcp = new McpServer(serverInfo, { capabilities: { tools: { listChanged: true } } });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

for (let i = 1; i <= 5; i++)
  mcp.registerTool(`tool-${i}`, { inputSchema: { n: z.number() } }, async () => text(`tool-${i}`));

// A caller error the server rejects before running anything: McpServer turns thrown errors into
// isError results, except the errors a protocol handler throws; validating here and throwing
// from the handler of a raw request keeps the -32602 a JSON-RPC error on the wire.
mcp.registerTool("strict-sum", { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) =>
  text(String(a + b)),
);

let added = 0;
mcp.registerTool(
  "add-tools",
  { inputSchema: { count: z.number().int().min(1).max(10) } },
  async ({ count }) => {
    // Each registration makes the SDK send notifications/tools/list_changed: a burst of `count`.
    for (let i = 0; i < count; i++) {
      added++;
      mcp.registerTool(`late-${added}`, { inputSchema: { n: z.number() } }, async () =>
        text(`late-${added}`),
      );
    }
    return text(`added ${count}`);
  },
);

mcp.registerTool("slow-write", { inputSchema: { ms: z.number() } }, async ({ ms }) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return text("written");
});

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;
// McpServer owns the tools/list and tools/call handlers; wrap its own (so its JSON Schema output
// and dispatch stay the SDK's) to paginate the list and to raise a real -32602.
const handlers = (mcp.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
const listTools = handlers.get("tools/list") as Handler;
const callTool = handlers.get("tools/call") as Handler;
mcp.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
  const all = ((await listTools(request, extra)) as ListToolsResult).tools;
  if (!pageSize) return { tools: all };
  const start = Number(request.params?.cursor ?? "0");
  const next = start + pageSize;
  return { tools: all.slice(start, next), ...(next < all.length ? { nextCursor: String(next) } : {}) };
});
handlers.set("tools/call", async (request, extra) => {
  const params = (request as { params: { name: string; arguments?: Record<string, unknown> } }).params;
  if (params.name === "strict-sum" && typeof params.arguments?.a !== "number")
    throw new McpError(ErrorCode.InvalidParams, "a must be a number");
  // slow-write told to fail answers -32001 itself after `ms` (as a gateway whose upstream timed out would):
  // a server's error, not the SDK's client-side timeout that has the same code.
  if (params.name === "slow-write" && params.arguments?.fail === "upstream-timeout") {
    await new Promise((resolve) => setTimeout(resolve, Number(params.arguments?.ms ?? 0)));
    throw new McpError(ErrorCode.RequestTimeout, "upstream timed out");
  }
  return callTool(request, extra);
});

await mcp.connect(new StdioServerTransport());
