import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CollectorRecord, createCollector, MemorySink } from "@/packages/collector/src";
import { EVERYTHING_BIN, expectValid, stdio } from "./helpers";

// Issue 43 §2: an agent or framework that calls the SDK client it got from `receipt.connect` directly
// (`client.callTool(…)`) is recorded like `receipt.callTool`, one chain a call, instead of silently not at all.
describe("direct client.callTool() on a connected client", () => {
  const sink = new MemorySink();
  const receipt = createCollector({
    sink,
    clientInfo: { name: "direct-test", version: "1.0.0" },
    heartbeatMs: 0,
  });
  let client: Client;

  beforeAll(async () => {
    client = await receipt.connect(stdio(EVERYTHING_BIN, ["stdio"]));
  });
  afterAll(async () => {
    await client?.close();
  });

  const endOf = (records: CollectorRecord[], tool: string, message: string) =>
    records.filter((record) => record.call?.tool === tool && record.recordId.endsWith(":end")).at(-1) ??
    (() => {
      throw new Error(`no end record for ${tool} (${message})`);
    })();

  it("records the call with the SDK's answer unchanged: one chain, side effect unknown, the SDK timeout as deadline", async () => {
    const before = sink.records.length;
    const result = (await client.callTool({ name: "echo", arguments: { message: "direct" } })) as {
      content: { text: string }[];
    };
    expect(result.content[0]?.text).toContain("direct");
    const records = sink.records.slice(before);
    expectValid(records);
    expect(new Set(records.map((record) => record.chainId)).size).toBe(1);
    const end = endOf(records, "echo", "default");
    expect(end.call).toMatchObject({ tool: "echo", sideEffect: "unknown", deadlineMs: 60_000 });
    expect(end.call?.response).toMatchObject({ kind: "result" });
    // Arguments never reach a record.
    expect(JSON.stringify(records)).not.toContain('direct"');
  });

  it("the SDK's timeout option becomes the deadline; concurrent calls are separate chains", async () => {
    const before = sink.records.length;
    await Promise.all([
      client.callTool({ name: "echo", arguments: { message: "a" } }, undefined, { timeout: 5_000 }),
      client.callTool({ name: "echo", arguments: { message: "b" } }, undefined, { timeout: 5_000 }),
    ]);
    const ends = sink.records.slice(before).filter((record) => record.recordId.endsWith(":end"));
    expect(ends).toHaveLength(2);
    expect(new Set(ends.map((record) => record.chainId)).size).toBe(2);
    for (const end of ends) expect(end.call?.deadlineMs).toBe(5_000);
  });

  it("a call the server refuses throws as the SDK would, and is recorded with the server's answer", async () => {
    const before = sink.records.length;
    const error = await client.callTool({ name: "no-such-tool", arguments: {} }).then(
      (result) => result,
      (thrown: unknown) => thrown,
    );
    const records = sink.records.slice(before);
    const end = endOf(records, "no-such-tool", "refused");
    expect(end.call?.inCatalog).toBe(false);
    expect(end.call?.response).toBeDefined();
    // Either way the caller sees what the SDK gives: an error result or a thrown McpError.
    expect(error).toBeDefined();
  });
});

describe("direct client.callTool() on an SDK 2.x client", () => {
  it("is recorded too: one chain, the SDK's answer unchanged", async () => {
    const sink = new MemorySink();
    const receipt = createCollector({
      sink,
      clientInfo: { name: "direct-v2", version: "1.0.0" },
      heartbeatMs: 0,
    });
    const client = await receipt.connectV2(stdio(EVERYTHING_BIN, ["stdio"]));
    try {
      const before = sink.records.length;
      const result = (await client.callTool({ name: "echo", arguments: { message: "v2" } })) as {
        content: { text: string }[];
      };
      expect(result.content[0]?.text).toContain("v2");
      const ends = sink.records.slice(before).filter((record) => record.recordId.endsWith(":end"));
      expect(ends).toHaveLength(1);
      expect(ends[0]?.call).toMatchObject({ tool: "echo", sideEffect: "unknown", deadlineMs: 60_000 });
    } finally {
      await client.close();
    }
  });
});
