import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogSchemaHash } from "@/lib/contract";
import { createCollector, MemorySink } from "@/packages/collector/src";
import { expectState, expectValid, fixtureServer, sleep } from "./helpers";

// Cases the reference servers cannot produce, against tests/collector/servers/fixture-server.ts (SDK McpServer).
describe("SDK-built fixture server over stdio", () => {
  const sink = new MemorySink();
  const receipt = createCollector({ sink, clientInfo: { name: "collector-test", version: "1.0.0" } });
  let client: Client;

  beforeAll(async () => {
    client = await receipt.connect(fixtureServer({ PAGE_SIZE: "2" }));
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it("follows every nextCursor: pages, toolCount and the canonical schema hash", async () => {
    const { catalog } = receipt.catalogState(client);
    expect(catalog).toMatchObject({ pages: 4, complete: true, toolCount: 8 });
    // The hash is over all pages: the same as hashing one full listing.
    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    expect(catalog?.schemaHash).toBe(catalogSchemaHash(tools));
  });

  it("a JSON-RPC -32602 → protocol_error / request.caller_error, code and class only", async () => {
    const report = await receipt.callTool(client, {
      name: "strict-sum",
      arguments: { a: "secret-ish value", b: 1 },
      sideEffect: "none",
      deadlineMs: 5_000,
    });
    expectValid(report.records);
    expect(report.record.call?.response).toMatchObject({
      kind: "error",
      error: { code: -32602, class: "invalid_params" },
    });
    const verdict = expectState(report.record, "protocol_error", "request.caller_error");
    expect(verdict.retrySafe).toBe(true);
    expect(JSON.stringify(report.records)).not.toMatch(/secret-ish|must be a number/);
  });

  it("list_changed after the catalog was read → one debounced re-discovery; the new tool's chain is not stale", async () => {
    const before = receipt.catalogState(client);
    const added = await receipt.callTool(client, {
      name: "add-tools",
      arguments: { count: 3 },
      deadlineMs: 5_000,
    });
    expect(added.result?.isError).toBeFalsy();
    // The burst of three notifications is read once (callTool waits for the pending re-discovery).
    const report = await receipt.callTool(client, {
      name: "late-1",
      arguments: { n: 1 },
      sideEffect: "none",
      deadlineMs: 5_000,
    });
    const after = receipt.catalogState(client);
    expect(after.catalog?.listChangedAt.length).toBe((before.catalog?.listChangedAt.length ?? 0) + 3);
    expect(after.refreshes).toBe(before.refreshes + 1);
    expect(after.catalog?.toolCount).toBe(11);
    expectValid(report.records);
    expect(report.record.call?.inCatalog).toBe(true);
    expectState(report.record, "unverified", "outcome.no_receipt");
  });

  it("a catalog read cut short (maxPages) → stale_catalog / catalog.incomplete", async () => {
    const bounded = createCollector({
      sink,
      clientInfo: { name: "collector-test", version: "1.0.0" },
      catalog: { maxPages: 2 },
    });
    const other = await bounded.connect(fixtureServer({ PAGE_SIZE: "2" }));
    try {
      const report = await bounded.callTool(other, {
        name: "tool-1",
        arguments: { n: 1 },
        sideEffect: "none",
        deadlineMs: 5_000,
      });
      expect(report.record.catalog).toMatchObject({ pages: 2, complete: false, toolCount: 4 });
      expectState(report.record, "stale_catalog", "catalog.incomplete");
    } finally {
      await other.close();
    }
  }, 30_000);

  it("the connection closing under a write → cancelledAt, no response → effect_unknown", async () => {
    const other = await receipt.connect(fixtureServer());
    const running = receipt.callTool(other, {
      name: "slow-write",
      arguments: { ms: 5_000 },
      sideEffect: "write",
      deadlineMs: 10_000,
    });
    await sleep(200);
    await other.close();
    const report = await running;
    expectValid(report.records);
    expect(report.record.call?.response).toBeUndefined();
    expect(report.record.call?.cancelledAt).toBeDefined();
    expectState(report.record, "effect_unknown", "effect.unreconciled");
  }, 30_000);
});
