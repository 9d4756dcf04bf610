import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createKeyWithCli, type RunningApp, startApp } from "@/tests/support/app-server";
import { mcpSpan, postTraces, protobufBody, readProtobufResponse } from "@/tests/support/otlp-exports";
import { legacyRecord } from "@/tests/support/record-builders";
import { createTestDatabase } from "@/tests/support/test-database";

// Exports at the edge of what one request may hold, against PostgreSQL's default lock table
// (max_locks_per_transaction 64): they are stored whole or refused with a 4xx, and never fail anyone else.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let client: pg.Client;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  key = createKeyWithCli(db.url, "otel-agent", ["ingest"]);
  app = await startApp(db.url, { RECEIPT_DISABLE_WORKERS: "1" });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await app?.stop();
  await db?.drop();
});

const count = async (sql: string, values: unknown[] = []) =>
  Number((await client.query(sql, values)).rows[0].n);

/** A native batch of `size` records, each its own chain. */
function nativeBatch(prefix: string, size: number) {
  return Array.from({ length: size }, (_, i) => ({
    ...legacyRecord(),
    recordId: `rec:${prefix}-${i}`,
    chainId: `chain:${prefix}-${i}`,
  }));
}

describe("an export of thousands of sessions and chains", () => {
  it("is stored whole while native batches sent meanwhile all succeed", async () => {
    const { rows } = await client.query("select current_setting('max_locks_per_transaction') as v");
    expect(rows[0].v).toBe("64");
    const SESSIONS = 6000;
    // One tools/call span a session: a session, a chain and a record each, 18,000 keys to serialise writers on.
    const spans = Array.from({ length: SESSIONS }, (_, i) =>
      mcpSpan({ method: "tools/call", tool: "echo", session: `wide-${i}`, startMs: i }),
    );
    const body = protobufBody(spans);
    expect(body.length).toBeLessThan(5 * 1024 * 1024);
    const native = apiClient(app.baseUrl, key);
    const exportAnswer = postTraces(app.baseUrl, key, body);
    // Native batches from other clients, some sent while the export holds its locks.
    const batches = await Promise.all(
      Array.from({ length: 12 }, async (_, b) => {
        await new Promise((resolve) => setTimeout(resolve, b * 50));
        const response = await native.post(nativeBatch(`beside-${b}`, 50));
        return response.status;
      }),
    );
    const response = await exportAnswer;
    expect(response.status).toBe(200);
    const answer = readProtobufResponse(new Uint8Array(await response.arrayBuffer()));
    expect(Number(String(answer.partialSuccess?.rejectedSpans ?? 0))).toBe(0);
    expect(batches).toEqual(Array(12).fill(200));
    expect(await count("select count(*)::int as n from otlp_spans")).toBe(SESSIONS);
    expect(await count("select count(*)::int as n from chains where chain_id like 'otlp:%'")).toBe(SESSIONS);
    expect(await count("select count(*)::int as n from chains where chain_id like 'chain:beside-%'")).toBe(
      600,
    );
  });
});
