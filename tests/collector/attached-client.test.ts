import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier";
import { type CollectorRecord, createCollector, MemorySink } from "@/packages/collector/src";
import { EVERYTHING_BIN, expectValid, stdio } from "./helpers";

// Issue 43: a client the agent connected before wrapping it (`receipt.connect(transport, { client })` on a client
// that already ran its handshake) is a partial observer. The handshake crossed the wire before the tap was on it, so
// the records say `observed.handshake: false` (and `catalog: false` until a tools/list crosses the tap): an unseen
// layer is a coverage gap (`unverified`, session.not_observed), never `incompatible_session`.

async function connectedEverything() {
  const client = new Client({ name: "attached-agent", version: "1.0.0" });
  const transport = stdio(EVERYTHING_BIN, ["stdio"]);
  await client.connect(transport);
  return { client, transport };
}

/** A collector recording into memory, as the agent named `name`, with no heartbeat. */
function memoryCollector(name: string) {
  const sink = new MemorySink();
  return { sink, receipt: createCollector({ sink, clientInfo: { name, version: "1.0.0" }, heartbeatMs: 0 }) };
}

const ends = (records: CollectorRecord[]) => records.filter((record) => record.recordId.endsWith(":end"));

describe("wrapping a client that is connected already", () => {
  it("without reading the catalog: the handshake and the catalog are not observed, the call is recorded", async () => {
    const { sink, receipt } = memoryCollector("attached");
    const { client, transport } = await connectedEverything();
    try {
      const wrapped = await receipt.connect(transport, { client, readCatalog: false });
      expect(wrapped).toBe(client);
      await client.callTool({ name: "echo", arguments: { message: "late" } });
      const records = [...sink.records];
      expectValid(records);
      const [end] = ends(records);
      expect(end?.observed).toEqual({ handshake: false, catalog: false });
      expect(end?.catalog).toBeUndefined();
      expect(end?.session.protocol.initializedAt).toBeUndefined();
      expect(end?.session.server?.name).toBe("mcp-servers/everything");
      const verdict = classify(end as CollectorRecord);
      expect(verdict.state).toBe("unverified");
      expect(verdict.reasons).toContain("session.not_observed");
      expect(verdict.reasons).toContain("catalog.not_observed");
      // Nothing incompatible was recorded for the session.
      expect(records.map((record) => classify(record).state)).not.toContain("incompatible_session");
    } finally {
      await client.close();
    }
  }, 30_000);

  it("reading the catalog: once a tools/list crosses the tap, the catalog is observed; the handshake still is not", async () => {
    const { sink, receipt } = memoryCollector("attached");
    const { client, transport } = await connectedEverything();
    try {
      await receipt.connect(transport, { client });
      await receipt.callTool(client, {
        name: "echo",
        arguments: { message: "late" },
        sideEffect: "none",
        deadlineMs: 30_000,
      });
      const records = [...sink.records];
      expectValid(records);
      const [end] = ends(records);
      expect(end?.observed).toEqual({ handshake: false });
      expect(end?.catalog?.toolCount).toBeGreaterThan(0);
      expect(end?.call?.inCatalog).toBe(true);
      const verdict = classify(end as CollectorRecord);
      expect(verdict.reasons).toContain("session.not_observed");
      expect(verdict.reasons).not.toContain("catalog.not_observed");
    } finally {
      await client.close();
    }
  }, 30_000);

  it("a client connected through the collector is observed whole: no `observed`", async () => {
    const { sink, receipt } = memoryCollector("whole");
    const client = await receipt.connect(stdio(EVERYTHING_BIN, ["stdio"]));
    try {
      await client.callTool({ name: "echo", arguments: { message: "whole" } });
      const [end] = ends([...sink.records]);
      expect(end?.observed).toBeUndefined();
      expect(end?.session.protocol.initializedAt).toBeDefined();
    } finally {
      await client.close();
    }
  }, 30_000);
});
