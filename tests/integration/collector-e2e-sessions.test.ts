import { createHash } from "node:crypto";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Collector,
  createCollector,
  fileHashVerifier,
  MODERN_PROTOCOL_VERSION,
  SessionFailedError,
} from "@/packages/collector/src";
import { fixtureServer, localHttp } from "@/tests/collector/helpers";
import { modernStdio } from "@/tests/collector/modern-helpers";
import { chainId, expectChain, type Receipt, startReceipt } from "./collector-e2e-support";

// Sessions that fail, a catalog that changes, and the modern era, end to end through a running Receipt:
// what the collector saw is posted, stored and classified by Receipt, and read back from its API.
let receipt: Receipt;
let collector: Collector;

beforeAll(async () => {
  receipt = await startReceipt();
  collector = createCollector({
    sink: receipt.sink,
    clientInfo: { name: "collector-e2e", version: "1.0.0" },
    labels: { env: "e2e" },
  });
}, 60_000);
afterAll(async () => {
  await receipt?.stop();
});

const sessionFailure = async (connecting: Promise<unknown>): Promise<SessionFailedError> => {
  const failure = await connecting.catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(SessionFailedError);
  return failure as SessionFailedError;
};

describe("sessions that fail before any call", () => {
  it("a local endpoint answering 401 with resource_metadata and scope → needs_auth, the scope stored, no token anywhere", async () => {
    const token = "sk-live-0123456789abcdefSECRET";
    const server = await localHttp((_req, res) => {
      res.writeHead(401, {
        "www-authenticate": `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="files:write"`,
      });
      res.end();
    });
    try {
      const transport = collector.streamableHttp(`${server.url}/mcp`, {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      const failure = await sessionFailure(collector.connect(transport));
      const detail = await expectChain(receipt, failure.chainId, "needs_auth", "auth.challenge_unresolved");
      expect(detail.records[0]?.body).toMatchObject({
        session: { auth: { challenge: { status: 401, requiredScope: "files:write" } } },
      });
      expect(JSON.stringify(detail)).not.toContain("SECRET");
      expect(receipt.app.output()).not.toContain("SECRET");
    } finally {
      await server.close();
    }
  });

  it("a local fake server answering an unsupported protocol version → incompatible_session", async () => {
    const server = await localHttp((req, res, body) => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const message = JSON.parse(body) as { id?: number };
      if (message.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: "2099-01-01",
            capabilities: {},
            serverInfo: { name: "fake", version: "9" },
          },
        }),
      );
    });
    try {
      const failure = await sessionFailure(collector.connect(collector.streamableHttp(`${server.url}/mcp`)));
      await expectChain(receipt, failure.chainId, "incompatible_session", "session.version_unsupported");
    } finally {
      await server.close();
    }
  });
});

describe("a list_changed over stdio after the catalog was read (SDK McpServer fixture)", () => {
  it("the re-discovery is recorded and the chain is not left stale", async () => {
    const client = await collector.connect(fixtureServer());
    try {
      await collector.callTool(client, { name: "add-tools", arguments: { count: 2 }, deadlineMs: 5_000 });
      const report = await collector.callTool(client, {
        chainId: chainId("after-list-changed"),
        name: "late-1",
        arguments: { n: 1 },
        sideEffect: "none",
        deadlineMs: 5_000,
      });
      const detail = await expectChain(receipt, report.chainId, "unverified", "outcome.no_receipt");
      type Stored = { catalog: { listChangedAt: string[]; refreshedAt: string } };
      const { catalog } = (detail.records.at(-1) as { body: Stored }).body;
      expect(catalog.listChangedAt.length).toBeGreaterThanOrEqual(2);
      expect(Date.parse(catalog.refreshedAt)).toBeGreaterThan(Date.parse(catalog.listChangedAt.at(-1) ?? ""));
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe("the modern 2026-07-28 era (SDK 2.x fixture server)", () => {
  it("a stateless write verified by its file hash → healthy; a revision the server lacks → incompatible_session", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "receipt-e2e-modern-")));
    const client = await collector.connectV2(modernStdio({ ROOT: dir }), {
      clientOptions: { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
    });
    try {
      const content = "modern\n";
      const path = join(dir, "modern.md");
      const report = await collector.callTool(client, {
        chainId: chainId("modern-write"),
        name: "write_file",
        arguments: { path, content },
        sideEffect: "write",
        deadlineMs: 10_000,
        verifyOutcome: fileHashVerifier(path, createHash("sha256").update(content).digest("hex")),
      });
      const detail = await expectChain(receipt, report.chainId, "healthy", "outcome.verified");
      expect(detail.records.at(-1)?.body).toMatchObject({
        session: { protocol: { era: "modern", serverSupportedVersions: [MODERN_PROTOCOL_VERSION] } },
      });
      const failure = await sessionFailure(
        collector.connectV2(modernStdio(), {
          clientOptions: { versionNegotiation: { mode: { pin: "2027-01-01" } } },
        }),
      );
      await expectChain(receipt, failure.chainId, "incompatible_session", "session.version_unsupported");
    } finally {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
