import { describe, expect, it } from "vitest";
import {
  createCollector,
  MemorySink,
  MODERN_PROTOCOL_VERSION,
  SessionFailedError,
} from "@/packages/collector/src/v2";
import { EVERYTHING_BIN, expectState, startEverythingHttp } from "./helpers";
import { v2Stdio } from "./modern-helpers";

const PIN_MODERN = { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } };

// Issue 43 §6: an SDK 2.x client pinned to 2026-07-28 against a legacy-only server (server-everything, SDK 1.x).
// The SDK probes with server/discover; the server answers it (JSON-RPC -32601 over stdio, on a sibling process the
// SDK spawns; HTTP 400 over Streamable HTTP) and the pinned client gives up. The server answered: the record says so
// (session.server present) and that it serves no modern version (an empty serverSupportedVersions), so the classifier
// says the client's version is unsupported (issue 43 §6), not that nothing answered.
describe("SDK 2.x pinned to the modern revision against a legacy server", () => {
  const collector = () => {
    const sink = new MemorySink();
    const receipt = createCollector({ sink, clientInfo: { name: "collector-test", version: "2.0.0" } });
    return { sink, receipt };
  };

  it("stdio (the probe runs on the SDK's sibling process): the answer is recorded → session.version_unsupported", async () => {
    const { sink, receipt } = collector();
    const error = await receipt
      .connectV2(v2Stdio(EVERYTHING_BIN, ["stdio"]), { clientOptions: PIN_MODERN })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionFailedError);
    expect(sink.records).toHaveLength(1);
    const [record] = sink.records;
    expect(record?.session.server).toEqual({ name: "unknown", version: "unknown" });
    expect(record?.session.protocol).toEqual({
      era: "modern",
      requestedVersion: MODERN_PROTOCOL_VERSION,
      clientSupportedVersions: [MODERN_PROTOCOL_VERSION],
      serverSupportedVersions: [],
    });
    expectState(record, "incompatible_session", "session.version_unsupported");
  }, 30_000);

  it("Streamable HTTP (the server answers the probe with HTTP 400): → session.version_unsupported", async () => {
    const server = await startEverythingHttp();
    try {
      const { sink, receipt } = collector();
      await expect(
        receipt.connectV2(receipt.streamableHttpV2(server.url), { clientOptions: PIN_MODERN }),
      ).rejects.toBeInstanceOf(SessionFailedError);
      expect(sink.records[0]?.session.server).toEqual({ name: "unknown", version: "unknown" });
      expect(sink.records[0]?.session.protocol.serverSupportedVersions).toEqual([]);
      expectState(sink.records[0], "incompatible_session", "session.version_unsupported");
    } finally {
      await server.stop();
    }
  }, 30_000);

  it("a server that never answers the probe stays session.no_answer", async () => {
    const { sink, receipt } = collector();
    const silent = v2Stdio(process.execPath, ["-e", "process.stdin.resume()"]);
    await expect(
      receipt.connectV2(silent, { clientOptions: PIN_MODERN, connectTimeoutMs: 300 }),
    ).rejects.toBeInstanceOf(SessionFailedError);
    expect(sink.records[0]?.session.server).toBeUndefined();
    expectState(sink.records[0], "incompatible_session", "session.no_answer");
  }, 30_000);
});
