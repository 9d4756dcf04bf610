import { spawnSync } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LAUNCHER_EXIT } from "@/lib/server/launcher";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { rebased } from "@/tests/support/dashboard-records";
import { legacyRecord } from "@/tests/support/record-builders";
import { createTestDatabase } from "@/tests/support/test-database";

// Pruning a large backlog while ingestion runs: every record sent meanwhile is stored, a chain written while it was
// prunable keeps its new record, and the backlog goes. Bad retention settings stop the app from starting.
const DAY = 24 * 60 * 60_000;
const BACKLOG = 4000;
const now = Date.now();

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let key: string;
let pruner: RunningApp | undefined;

const count = async (sqlText: string, values: unknown[] = []) =>
  (await client.query<{ n: number }>(`select count(*)::int as n from ${sqlText}`, values)).rows[0]?.n ?? -1;

beforeAll(async () => {
  db = await createTestDatabase();
  key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(
    `with seeded as (
        insert into health_records (record_id, chain_id, session_id, observed_at, body, state, layer, reasons)
        select 'backlog-rec-' || i, 'backlog-' || i, 's', now() - interval '60 days', '{}', 'healthy', 'outcome', '{}'
          from generate_series(1, $1::int) i
        returning seq, record_id, chain_id, observed_at)
      insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq, observed_at,
          evaluated_at, client_name, client_version, transport)
        select chain_id, 's', 'healthy', 'outcome', '{}', record_id, seq, observed_at, observed_at, 'c', '1', 'stdio'
          from seeded`,
    [BACKLOG],
  );
  await client.query(
    `insert into chain_state_changes (chain_id, to_state, reason, at, cause)
      select chain_id, 'healthy', 'seeded', observed_at, 'record' from chains where chain_id like 'backlog-%'`,
  );
}, 60_000);

afterAll(async () => {
  await pruner?.stop();
  await client?.end();
  await db?.drop();
});

describe("pruning while ingestion runs", () => {
  it.each([
    ["RECEIPT_RETENTION_DAYS", "0"],
    ["RECEIPT_ALERT_RETENTION_DAYS", "many"],
    ["RECEIPT_OTLP_SPAN_RETENTION_DAYS", "0"],
  ])("refuses to start with %s=%s, naming it", (name, value) => {
    const started = spawnSync(process.execPath, ["--import", "tsx", "scripts/serve.ts", "start"], {
      cwd: path.resolve(import.meta.dirname, "../.."),
      env: { ...process.env, DATABASE_URL: db.url, [name]: value },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(started.status).toBe(LAUNCHER_EXIT.startFailed);
    expect(started.stderr).toContain(`${name}:`);
  });

  it("stores every record sent meanwhile and deletes the whole backlog", async () => {
    // A shared machine may take longer than startApp's default to start an app.
    const writer = await startApp(db.url, {}, 120_000);
    const revived = Array.from({ length: 20 }, (_, i) =>
      rebased(legacyRecord(), now - 60 * DAY, `revive-${i}`),
    );
    try {
      expect((await apiClient(writer.baseUrl, key).post(revived)).status).toBe(200);
    } finally {
      await writer.stop();
    }
    pruner = await startApp(
      db.url,
      {
        RECEIPT_RETENTION: "1",
        RECEIPT_RETENTION_TICK_MS: "100",
        RECEIPT_RETENTION_BATCH: "50",
        RECEIPT_RETENTION_PAUSE_MS: "0",
      },
      120_000,
    );
    const api = apiClient(pruner.baseUrl, key);
    const fresh = Array.from({ length: 40 }, (_, b) =>
      Array.from({ length: 10 }, (_, i) => rebased(legacyRecord(), now - i * 1000, `fresh-${b}-${i}`)),
    );
    const later = revived.map((record) => ({
      ...rebased(legacyRecord(), now, "later"),
      chainId: record.chainId,
      recordId: `${record.recordId}:later`,
    }));
    const backlogWhileIngesting: number[] = [];
    const statuses = await Promise.all([
      ...fresh.map(async (batch, i) => {
        await new Promise((r) => setTimeout(r, i * 20));
        backlogWhileIngesting.push(await count("chains where chain_id like 'backlog-%'"));
        return (await api.post(batch)).status;
      }),
      ...later.map(async (record, i) => {
        await new Promise((r) => setTimeout(r, i * 30));
        return (await api.post([record])).status;
      }),
    ]);
    expect(statuses.every((status) => status === 200)).toBe(true);
    // The pruning ran while the batches went in: the backlog was part gone, not gone or whole, for some of them.
    expect(backlogWhileIngesting.some((n) => n > 0 && n < BACKLOG)).toBe(true);
    const deadline = Date.now() + 60_000;
    while ((await count("chains where chain_id like 'backlog-%'")) > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await count("chains where chain_id like 'backlog-%'")).toBe(0);
    expect(await count("health_records where chain_id like 'backlog-%'")).toBe(0);
    expect(await count("chain_state_changes where chain_id like 'backlog-%'")).toBe(0);
    const freshIds = fresh.flat().map((record) => record.recordId);
    expect(await count("health_records where record_id = any($1)", [freshIds])).toBe(freshIds.length);
    expect(await count("chains where chain_id = any($1)", [fresh.flat().map((r) => r.chainId)])).toBe(400);
    // A revived chain keeps its new record: whether it was pruned before it arrived or kept because of it.
    const laterIds = later.map((record) => record.recordId);
    expect(await count("health_records where record_id = any($1)", [laterIds])).toBe(20);
    const { rows } = await client.query<{ current_record_id: string }>(
      "select current_record_id from chains where chain_id = any($1) order by 1",
      [later.map((record) => record.chainId)],
    );
    expect(rows.map((row) => row.current_record_id)).toEqual([...laterIds].sort());
  }, 400_000);
});
