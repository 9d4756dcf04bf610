import { afterEach, describe, expect, it } from "vitest";
import { createCollector, MemorySink, SessionFailedError } from "@/packages/collector/src";
import { expectState, expectValid, fixtureServer, localHttp, stdio } from "./helpers";

// Sessions that never get to a call are evidence too: each becomes a record with no call.
describe("sessions that fail before any call", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const collector = () => {
    const sink = new MemorySink();
    return {
      sink,
      receipt: createCollector({ sink, clientInfo: { name: "collector-test", version: "1.0.0" } }),
    };
  };

  it("401 with WWW-Authenticate → needs_auth with the scope, and no token anywhere", async () => {
    const token = "sk-live-0123456789abcdefSECRET";
    const server = await localHttp((_req, res) => {
      res.writeHead(401, {
        "content-type": "application/json",
        "www-authenticate": `Bearer error="invalid_token", resource_metadata="${"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"}", scope="records:write tools:call"`,
      });
      res.end('{"error":"unauthorized"}');
    });
    closers.push(server.close);
    const { sink, receipt } = collector();
    const transport = receipt.streamableHttp(`${server.url}/mcp?tenant=acme`, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const failure = await receipt.connect(transport).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SessionFailedError);
    const [record] = sink.records;
    expectValid(sink.records);
    expectState(record, "needs_auth", "auth.challenge_unresolved");
    expect(record?.call).toBeUndefined();
    expect(record?.session.auth?.challenge).toEqual({
      status: 401,
      at: expect.any(String),
      error: "invalid_token",
      requiredScope: "records:write tools:call",
      resourceMetadataUrl: "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp",
      resource: `${server.url}/mcp`,
    });
    expect(record?.session.transport).toBe("streamable-http");
    const serialized = JSON.stringify(sink.records);
    expect(serialized).not.toContain(token);
    expect(serialized).not.toContain("SECRET");
    expect(serialized).not.toContain("tenant=acme");
  });

  it("a server answering an unsupported protocol version → incompatible_session", async () => {
    const server = await localHttp((req, res, body) => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: "2099-01-01",
            capabilities: { tools: {} },
            serverInfo: { name: "fake-future", version: "9" },
          },
        }),
      );
    });
    closers.push(server.close);
    const { sink, receipt } = collector();
    await expect(receipt.connect(receipt.streamableHttp(`${server.url}/mcp`))).rejects.toBeInstanceOf(
      SessionFailedError,
    );
    const [record] = sink.records;
    expectValid(sink.records);
    expectState(record, "incompatible_session", "session.version_unsupported");
    expect(record?.session.protocol).toMatchObject({
      requestedVersion: "2025-11-25",
      acceptedVersion: "2099-01-01",
    });
    expect(record?.session.protocol.initializedAt).toBeUndefined();
    expect(record?.session.server).toEqual({ name: "fake-future", version: "9" });
  });

  it("an initialize that never answers → incompatible_session / session.no_answer", async () => {
    const { sink, receipt } = collector();
    const silent = stdio(process.execPath, ["-e", "process.stdin.resume()"]);
    await expect(receipt.connect(silent, { connectTimeoutMs: 300 })).rejects.toBeInstanceOf(
      SessionFailedError,
    );
    expectValid(sink.records);
    expectState(sink.records[0], "incompatible_session", "session.no_answer");
  });

  it("a required capability the server lacks → a session record (incompatible_session), client still returned", async () => {
    const sink = new MemorySink();
    const receipt = createCollector({
      sink,
      clientInfo: { name: "collector-test", version: "1.0.0" },
      requiredCapabilities: { server: ["tools.listChanged", "resources"] },
    });
    const client = await receipt.connect(fixtureServer());
    closers.push(() => client.close());
    expectValid(sink.records);
    expectState(sink.records[0], "incompatible_session", "session.capability_missing");
    const report = await receipt.callTool(client, {
      name: "tool-1",
      arguments: { n: 1 },
      sideEffect: "none",
      deadlineMs: 5_000,
    });
    expectState(report.record, "incompatible_session", "session.capability_missing");
  }, 30_000);
});
