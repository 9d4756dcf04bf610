import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CollectorRecord, createCollector, SessionFailedError } from "@/packages/collector/src";
import { createCollector as createCollectorV2, MODERN_PROTOCOL_VERSION } from "@/packages/collector/src/v2";
import { EVERYTHING_BIN, fixtureServer } from "@/tests/collector/helpers";
import { v2Stdio } from "@/tests/collector/modern-helpers";
import { chainId, expectChain, type Receipt, startReceipt } from "./collector-e2e-support";

// Issue 43 §4 and §6 end to end: the collector's sink against a running Receipt (production build, its own
// PostgreSQL database); every assertion is about what Receipt stored and decided, read back from its API.
let receipt: Receipt;

beforeAll(async () => {
  receipt = await startReceipt();
}, 60_000);
afterAll(async () => {
  await receipt?.stop();
});

describe("a server whose self-reported strings Receipt could not store", () => {
  it("a NUL in its name and an ANSI escape in its version: the chain is stored with the names repaired, said so", async () => {
    const collector = createCollector({
      sink: receipt.sink,
      clientInfo: { name: "collector-e2e", version: "1.0.0" },
    });
    const odd = await collector.connect(
      fixtureServer({ SERVER_INFO_JSON: JSON.stringify({ name: "odd\u0000srv", version: "1.0\u001b[0m" }) }),
    );
    try {
      const call = await collector.callTool(odd, {
        name: "tool-1",
        arguments: { n: 1 },
        sideEffect: "none",
        deadlineMs: 10_000,
        chainId: chainId("nul-server-name"),
      });
      const report = await receipt.sink.flush();
      expect(report.failed).toEqual([]);
      expect(report.masked).toEqual(
        expect.arrayContaining([
          { recordId: call.record.recordId, path: "$.session.server.name", code: "control_replaced" },
          { recordId: call.record.recordId, path: "$.session.server.version", code: "control_replaced" },
        ]),
      );
      const detail = await expectChain(receipt, call.chainId, "unverified", "outcome.no_receipt");
      expect(detail.records.map((r) => r.recordId).sort()).toEqual(
        call.records.map((r) => r.recordId).sort(),
      );
      for (const record of detail.records)
        expect((record.body as CollectorRecord).session.server).toEqual({
          name: "odd\uFFFDsrv",
          version: "1.0\uFFFD[0m",
        });
    } finally {
      await odd.close();
    }
  });
});

describe("an SDK 2.x client pinned to 2026-07-28 against a legacy server (server-everything)", () => {
  it("the server answered the probe: Receipt stores incompatible_session / session.version_unsupported", async () => {
    const collector = createCollectorV2({
      sink: receipt.sink,
      clientInfo: { name: "collector-e2e", version: "2.0.0" },
    });
    const error = await collector
      .connectV2(v2Stdio(EVERYTHING_BIN, ["stdio"]), {
        clientOptions: { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionFailedError);
    const failed = error as SessionFailedError;
    const detail = await expectChain(
      receipt,
      failed.chainId,
      "incompatible_session",
      "session.version_unsupported",
    );
    expect(detail.records).toHaveLength(1);
    expect((detail.records[0] as { body: CollectorRecord }).body.session.server).toEqual({
      name: "unknown",
      version: "unknown",
    });
  }, 30_000);
});
