// The sessions `npm run demo` runs: real MCP servers from node_modules/.bin (server-filesystem and
// server-everything over stdio), a local endpoint that answers 401, and a fake server that answers a
// protocol version the SDK cannot accept. Each returns the chain ids it produced.
import { createHash } from "node:crypto";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { createServer, type RequestListener } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type Collector, fileHashVerifier, SessionFailedError } from "../packages/collector/src";

const bin = (name: string) => path.resolve(import.meta.dirname, "../node_modules/.bin", name);
const stdio = (command: string, args: string[]) =>
  new StdioClientTransport({ command, args, stderr: "ignore" });

export async function filesystemSessions(receipt: Collector, chain: (name: string) => string) {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), "receipt-demo-")));
  const client = await receipt.connect(stdio(bin("mcp-server-filesystem"), [dir]));
  try {
    const content = "# Q3 report\nrevenue: 42\n";
    const sha = createHash("sha256").update(content).digest("hex");
    const write = (name: string, file: string, expected: string) =>
      receipt.callTool(client, {
        chainId: chain(name),
        name: "write_file",
        arguments: { path: path.join(dir, file), content },
        sideEffect: "write",
        operationKey: chain(`${name}-op`),
        deadlineMs: 10_000,
        verifyOutcome: fileHashVerifier(path.join(dir, file), expected),
      });
    const healthy = await write("report-written", "q3.md", sha);
    const wrong = await write("report-wrong-hash", "q3-copy.md", "0".repeat(64));
    return [healthy.chainId, wrong.chainId];
  } finally {
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function everythingSessions(receipt: Collector, chain: (name: string) => string) {
  const client = await receipt.connect(stdio(bin("mcp-server-everything"), ["stdio"]));
  const call = (name: string, tool: string, args: Record<string, unknown>, extra = {}) =>
    receipt.callTool(client, {
      chainId: chain(name),
      name: tool,
      arguments: args,
      deadlineMs: 10_000,
      ...extra,
    });
  try {
    const reports = await Promise.all([
      call("echo-read-only", "echo", { message: "hello" }, { sideEffect: "none" }),
      call("unknown-tool", "no-such-tool", {}),
      call("sum-bad-arguments", "get-sum", { a: "one", b: 2 }, { sideEffect: "none" }),
      call(
        "long-running-with-progress",
        "trigger-long-running-operation",
        { duration: 2, steps: 4 },
        {
          sideEffect: "none",
          inactivityMs: 2_000,
        },
      ),
      call(
        "write-past-deadline",
        "trigger-long-running-operation",
        { duration: 5, steps: 5 },
        {
          sideEffect: "write",
          deadlineMs: 1_500,
        },
      ),
      call(
        "research-task",
        "simulate-research-query",
        { topic: "tides" },
        {
          sideEffect: "none",
          deadlineMs: 30_000,
          inactivityMs: 10_000,
        },
      ),
    ]);
    return reports.map((report) => report.chainId);
  } finally {
    await client.close();
  }
}

/** A local endpoint that challenges every request, and a fake server answering a version from the future. */
export async function failingSessions(receipt: Collector) {
  const challenge = await listen((_req, res) => {
    res.writeHead(401, {
      "www-authenticate": `Bearer error="invalid_token", scope="reports:write", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"`,
    });
    res.end();
  });
  const future = await listen((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const message = body ? (JSON.parse(body) as { id?: number }) : {};
      if (req.method !== "POST" || message.id === undefined) return void res.writeHead(202).end();
      const result = {
        protocolVersion: "2099-01-01",
        capabilities: {},
        serverInfo: { name: "future", version: "9" },
      };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
  });
  const chains: string[] = [];
  try {
    for (const url of [challenge.url, future.url]) {
      const failure = await receipt.connect(receipt.streamableHttp(url)).catch((error: unknown) => error);
      if (!(failure instanceof SessionFailedError)) throw new Error(`expected ${url} to fail the session`);
      chains.push(failure.chainId);
    }
    return chains;
  } finally {
    challenge.close();
    future.close();
  }
}

async function listen(handler: RequestListener) {
  const server = createServer(handler);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
