import { createHash } from "node:crypto";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createCollector,
  fileHashVerifier,
  MemorySink,
  MODERN_PROTOCOL_VERSION,
  SessionFailedError,
} from "@/packages/collector/src/v2";
import { EVERYTHING_BIN, expectState, expectValid, sleep } from "./helpers";
import { expectRediscovery, modernStdio, v2Stdio } from "./modern-helpers";

const PIN_MODERN = { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } };
const content = "modern report\n";
const sha = createHash("sha256").update(content).digest("hex");

// The modern 2026-07-28 era (stateless, server/discover), against tests/collector/servers/modern-server.ts
// built with @modelcontextprotocol/server 2.4.0, through @modelcontextprotocol/client 2.4.0.
describe("modern era over stdio (SDK 2.x)", () => {
  const sink = new MemorySink();
  const receipt = createCollector({
    sink,
    clientInfo: { name: "collector-test", version: "2.0.0" },
    requiredCapabilities: { server: ["tools", "extensions.com.example/receipts"] },
    heartbeatMs: 0,
  });
  let dir: string;
  let client: Client;

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), "receipt-modern-")));
    client = await receipt.connectV2(modernStdio({ ROOT: dir }), { clientOptions: PIN_MODERN });
  }, 30_000);
  afterAll(async () => {
    await client?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("a write verified by its file hash → healthy; the session is modern, read off the wire", async () => {
    const path = join(dir, "modern.md");
    const report = await receipt.callTool(client, {
      name: "write_file",
      arguments: { path, content },
      sideEffect: "write",
      deadlineMs: 10_000,
      verifyOutcome: fileHashVerifier(path, sha),
    });
    expectValid(report.records);
    expectState(report.record, "healthy", "outcome.verified");
    const { session, catalog, call } = report.record;
    expect(session.protocol).toEqual({
      era: "modern",
      requestedVersion: MODERN_PROTOCOL_VERSION,
      acceptedVersion: MODERN_PROTOCOL_VERSION,
      clientSupportedVersions: [MODERN_PROTOCOL_VERSION],
      serverSupportedVersions: [MODERN_PROTOCOL_VERSION],
    });
    expect(session.server).toEqual({ name: "receipt-modern-fixture", version: "2.0.0" });
    expect(session.capabilities.server).toEqual(
      expect.arrayContaining(["tools", "tools.listChanged", "extensions.com.example/receipts"]),
    );
    expect(catalog).toMatchObject({ pages: 1, complete: true, toolCount: 4 });
    expect(catalog).not.toHaveProperty("ttlMs"); // the SDK's default hint is 0: "immediately stale"
    expect(call).toMatchObject({ inCatalog: true, response: { kind: "result", isError: false } });
    expect(JSON.stringify(report.records)).not.toContain("modern report");
  });

  it("progress observed mid-way → working; the finished read-only call → unverified", async () => {
    const running = receipt.callTool(client, {
      name: "count",
      arguments: { steps: 4, stepMs: 250 },
      sideEffect: "none",
      deadlineMs: 10_000,
      inactivityMs: 2_000,
    });
    await sleep(600);
    const midway = sink.records.filter((record) => record.call?.tool === "count").at(-1);
    expect(midway?.call?.progress.length).toBeGreaterThanOrEqual(1);
    expectState(midway, "working", "request.in_flight");
    const report = await running;
    expect(report.record.call?.progress.map((entry) => entry.progress)).toEqual([1, 2, 3, 4]);
    expectState(report.record, "unverified", "outcome.no_receipt");
  });

  it("an unknown tool (the SDK 2.x server answers -32602) → protocol_error / request.unknown_tool", async () => {
    const report = await receipt.callTool(client, { name: "no-such-tool", arguments: {}, deadlineMs: 5_000 });
    expect(report.record.call).toMatchObject({
      inCatalog: false,
      response: { kind: "error", error: { code: -32602, class: "invalid_params" } },
    });
    expectState(report.record, "protocol_error", "request.unknown_tool");
  });

  it("a tool returning isError → tool_failed", async () => {
    const report = await receipt.callTool(client, { name: "refuse", arguments: {}, deadlineMs: 5_000 });
    expectState(report.record, "tool_failed", "request.tool_error");
  });

  it("list_changed on the subscriptions/listen stream → one re-discovery; the new tool is in the catalog", async () => {
    await expectRediscovery(receipt, client);
  });
});

describe("SDK 2.x against servers that are not modern", () => {
  it("stdio: the same -32022 when the SDK probed on a sibling process the tap never saw", async () => {
    const sink = new MemorySink();
    const receipt = createCollector({ sink, clientInfo: { name: "collector-test", version: "2.0.0" } });
    await expect(
      receipt.connectV2(modernStdio(), {
        clientOptions: { versionNegotiation: { mode: { pin: "2027-01-01" } } },
      }),
    ).rejects.toBeInstanceOf(SessionFailedError);
    expectState(sink.records[0], "incompatible_session", "session.version_unsupported");
    expect(sink.records[0]?.session.protocol.serverSupportedVersions).toEqual([MODERN_PROTOCOL_VERSION]);
  }, 30_000);

  it("'auto' against a legacy-only reference server falls back to initialize → a legacy record", async () => {
    const sink = new MemorySink();
    const receipt = createCollector({ sink, clientInfo: { name: "collector-test", version: "2.0.0" } });
    const client = await receipt.connectV2(v2Stdio(EVERYTHING_BIN, ["stdio"]), {
      clientOptions: { versionNegotiation: { mode: "auto" } },
    });
    try {
      const report = await receipt.callTool(client, {
        name: "get-sum",
        arguments: { a: 1, b: 2 },
        sideEffect: "none",
        deadlineMs: 5_000,
      });
      expectValid(report.records);
      expect(report.record.session.protocol).toMatchObject({
        era: "legacy",
        requestedVersion: "2025-11-25",
        acceptedVersion: "2025-11-25",
        initializedAt: expect.any(String),
      });
      expect(report.record.session.protocol).not.toHaveProperty("serverSupportedVersions");
      expectState(report.record, "unverified", "outcome.no_receipt");
    } finally {
      await client.close();
    }
  }, 30_000);
});
