import { createHash } from "node:crypto";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createCollector,
  fileHashVerifier,
  MemorySink,
  MODERN_PROTOCOL_VERSION,
  SessionFailedError,
} from "@/packages/collector/src/v2";
import { expectState, expectValid } from "./helpers";
import { expectRediscovery, startModernHttp } from "./modern-helpers";

const PIN_MODERN = { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } };
const content = "modern report\n";
const sha = createHash("sha256").update(content).digest("hex");

// The modern 2026-07-28 era (stateless, server/discover), against tests/collector/servers/modern-server.ts
// built with @modelcontextprotocol/server 2.4.0, through @modelcontextprotocol/client 2.4.0.
describe("modern era over Streamable HTTP (SDK 2.x)", () => {
  let server: Awaited<ReturnType<typeof startModernHttp>>;
  let dir: string;
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), "receipt-modern-http-")));
    server = await startModernHttp({ ROOT: dir });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("'auto' negotiation probes with server/discover on the wire → a modern healthy write", async () => {
    const sink = new MemorySink();
    const receipt = createCollector({ sink, clientInfo: { name: "collector-test", version: "2.0.0" } });
    const client = await receipt.connectV2(receipt.streamableHttpV2(server.url), {
      clientOptions: { versionNegotiation: { mode: "auto" } },
    });
    try {
      const path = join(dir, "http.md");
      const report = await receipt.callTool(client, {
        name: "write_file",
        arguments: { path, content },
        sideEffect: "write",
        deadlineMs: 10_000,
        verifyOutcome: fileHashVerifier(path, sha),
      });
      expectValid(report.records);
      expectState(report.record, "healthy", "outcome.verified");
      expect(report.record.session).toMatchObject({
        transport: "streamable-http",
        protocol: {
          era: "modern",
          acceptedVersion: MODERN_PROTOCOL_VERSION,
          serverSupportedVersions: [MODERN_PROTOCOL_VERSION],
        },
      });
      expect(report.record.session.protocol.clientSupportedVersions).toEqual(
        expect.arrayContaining([MODERN_PROTOCOL_VERSION, "2025-11-25"]),
      );
      expect(report.record.session.protocol).not.toHaveProperty("initializedAt");
    } finally {
      await client.close();
    }
  });

  it("list_changed over HTTP, on the subscriptions/listen stream → one re-discovery", async () => {
    const receipt = createCollector({
      sink: new MemorySink(),
      clientInfo: { name: "collector-test", version: "2.0.0" },
    });
    const client = await receipt.connectV2(receipt.streamableHttpV2(server.url), {
      clientOptions: PIN_MODERN,
    });
    try {
      await expectRediscovery(receipt, client);
    } finally {
      await client.close();
    }
  });

  it("a revision the server does not speak → -32022 → incompatible_session with its supported versions", async () => {
    const sink = new MemorySink();
    const receipt = createCollector({ sink, clientInfo: { name: "collector-test", version: "2.0.0" } });
    const failure = await receipt
      .connectV2(receipt.streamableHttpV2(server.url), {
        clientOptions: { versionNegotiation: { mode: { pin: "2027-01-01" } } },
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SessionFailedError);
    const [record] = sink.records;
    expectValid(sink.records);
    expectState(record, "incompatible_session", "session.version_unsupported");
    expect(record?.session.protocol).toEqual({
      era: "modern",
      requestedVersion: "2027-01-01",
      clientSupportedVersions: ["2027-01-01"],
      serverSupportedVersions: [MODERN_PROTOCOL_VERSION],
    });
  });
});
