/**
 * A small MCP server built with the SDK 2.x server package (`@modelcontextprotocol/server` 2.4.0),
 * for the modern 2026-07-28 era the reference servers do not speak: a stateless session over stdio
 * (`serveStdio`) or Streamable HTTP (`createMcpHandler`), a real file write, progress, a tool error,
 * and a tool list that changes at run time (list_changed on subscriptions/listen streams).
 * Any other revision a client asks for is answered by the SDK itself with -32022.
 *
 *   tsx modern-server.ts stdio          ROOT=<dir for write_file>
 *   tsx modern-server.ts http           prints "listening <port>" on stderr (127.0.0.1)
 */
import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { relative, resolve } from "node:path";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const root = resolve(process.env.ROOT ?? process.cwd());
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
/** Tools added at run time; every instance (one per HTTP request) registers them. */
const late: string[] = [];
let notifyToolsChanged: (() => void) | undefined;

function build(): McpServer {
  const server = new McpServer(
    { name: "receipt-modern-fixture", version: "2.0.0" },
    { capabilities: { tools: { listChanged: true }, extensions: { "com.example/receipts": {} } } },
  );
  server.registerTool(
    "write_file",
    { inputSchema: z.object({ path: z.string(), content: z.string() }) },
    async ({ path, content }) => {
      const target = resolve(root, path);
      if (relative(root, target).startsWith("..")) return { ...text("outside the root"), isError: true };
      await writeFile(target, content);
      return text(`wrote ${content.length} bytes`);
    },
  );
  server.registerTool(
    "count",
    { inputSchema: z.object({ steps: z.number().int().min(1).max(20), stepMs: z.number().int().min(0) }) },
    async ({ steps, stepMs }, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        await new Promise((done) => setTimeout(done, stepMs));
        if (progressToken !== undefined)
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, progress: step, total: steps },
          });
      }
      return text(`counted to ${steps}`);
    },
  );
  for (const name of late) server.registerTool(name, { inputSchema: z.object({}) }, async () => text(name));
  server.registerTool("add-tool", { inputSchema: z.object({}) }, async () => {
    const name = `late-${late.length + 1}`;
    late.push(name);
    // Over stdio this instance lives as long as the connection: registering publishes list_changed to its
    // subscriptions/listen streams. Over HTTP every request gets a fresh instance: the handler's bus does.
    server.registerTool(name, { inputSchema: z.object({}) }, async () => text(name));
    notifyToolsChanged?.();
    return text(name);
  });
  server.registerTool("refuse", { inputSchema: z.object({}) }, async () => ({
    ...text("the destination refused the write"),
    isError: true,
  }));
  return server;
}

if (process.argv[2] === "http") {
  const handler = createMcpHandler(build);
  notifyToolsChanged = () => handler.notify.toolsChanged();
  // A minimal node:http → fetch bridge (the SDK's own adapter lives in @modelcontextprotocol/node).
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: hasBody ? Buffer.concat(chunks) : undefined,
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  http.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
    const address = http.address();
    process.stderr.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
  });
} else {
  serveStdio(build);
}
