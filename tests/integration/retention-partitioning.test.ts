import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyMigrations } from "@/lib/server/db/migrate";
import { ensureRecordPartitions, partitionOfWeek, weekStart } from "@/lib/server/db/retention-partitions";
import { sqlOver, transactionOver } from "@/lib/server/db/sql";
import { displayPrefix, generateKey, hashKey } from "@/lib/server/keys/key-format";
import { apiClient, type RunningApp, startApp } from "@/tests/support/app-server";
import { rebased } from "@/tests/support/dashboard-records";
import { legacyRecord } from "@/tests/support/record-builders";
import { databaseUrl } from "@/tests/support/test-database";

// health_records becomes a table partitioned by week of observed_at on a database that has records: the migration
// moves them (DEFAULT partition, then this week's into its own), every seq, body and chain link intact, and
// ingestion keeps record ids unique across partitions — a duplicate, a conflict — also between concurrent batches.
const PREVIOUS_MIGRATION = "20261202022220_chain_rollups";
const DAY = 24 * 60 * 60_000;
const now = Date.now();
const thisWeek = partitionOfWeek(weekStart(new Date(now)));

const adminUrl = inject("adminUrl");
const dbName = `receipt_partitioning_${randomBytes(6).toString("hex")}`;
const url = databaseUrl(adminUrl, dbName);
let client: pg.Client;
let key: string;
let app: RunningApp | undefined;

const records = [
  rebased(legacyRecord(), now - 60_000, "now"),
  rebased(legacyRecord(), now - 60 * DAY, "old"),
  rebased(legacyRecord(), Date.parse("2100-01-01T00:00:00Z"), "future"),
];

type Row = { record_id: string; seq: string; body: string; chain_id: string };
const readRecords = async () =>
  (
    await client.query<Row>(
      "select record_id, seq::text, body::text, chain_id from health_records order by seq",
    )
  ).rows;
let before: Row[] = [];

async function withAdmin(statement: string) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

beforeAll(async () => {
  await withAdmin(`create database "${dbName}"`);
  await applyMigrations(url, { through: PREVIOUS_MIGRATION });
  client = new pg.Client({ connectionString: url });
  await client.connect();
  // Straight into the old schema: the keys CLI of today also writes the audit log, a later table.
  key = generateKey();
  await client.query(
    "insert into ingestion_keys (id, name, key_hash, prefix, scopes) values (gen_random_uuid(), 'agent', $1, $2, $3)",
    [hashKey(key), displayPrefix(key), ["ingest", "read"]],
  );
  // Today's app writes the rows: the deltas' labels and unseen columns it appends to come in later migrations, so
  // they are there only while the app writes (the later migrations add them again).
  await client.query(
    "alter table chain_rollup_deltas add column labels jsonb not null default '{}', add column unseen smallint not null default 0",
  );
  // The same for the outcome a destination check records beside the effect (read with each chain's head).
  await client.query(
    "alter table operator_effects add column outcome_verdict text, add column outcome_verifier text, add column outcome_receipt text",
  );
  const writer = await startApp(url);
  try {
    const response = await apiClient(writer.baseUrl, key).post(records);
    expect(response.status).toBe(200);
  } finally {
    await writer.stop();
  }
  await client.query("alter table chain_rollup_deltas drop column labels, drop column unseen");
  await client.query(
    "alter table operator_effects drop column outcome_verdict, drop column outcome_verifier, drop column outcome_receipt",
  );
  before = await readRecords();
  await applyMigrations(url);
  app = await startApp(url);
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await client?.end();
  await withAdmin(`drop database if exists "${dbName}" with (force)`);
});

const post = (batch: unknown[]) => apiClient(app?.baseUrl ?? "", key).post(batch);

describe("partitioned health_records", () => {
  it("keeps every stored record, seq and body through the migration", async () => {
    expect(before).toHaveLength(3);
    expect(await readRecords()).toEqual(before);
    const { rows } = await client.query<{ relkind: string }>(
      "select relkind from pg_class where relname = 'health_records'",
    );
    expect(rows[0]?.relkind).toBe("p");
    const { rows: joined } = await client.query<{ n: number }>(
      "select count(*)::int as n from chains c join health_records r on r.seq = c.current_seq",
    );
    expect(joined[0]?.n).toBe(3);
  });

  it("puts this week's records in this week's partition and the others in the DEFAULT one", async () => {
    const where = async (table: string) =>
      (await client.query<{ record_id: string }>(`select record_id from ${table} order by 1`)).rows.map(
        (row) => row.record_id,
      );
    expect(await where(thisWeek.name)).toEqual([records[0]?.recordId]);
    expect(await where("health_records_default")).toEqual(
      [records[1]?.recordId, records[2]?.recordId].sort(),
    );
  });

  it("answers a re-sent record as a duplicate and other content under its id as a conflict", async () => {
    const again = await post(records);
    expect(again.status).toBe(200);
    const body = (await again.json()) as { results: { duplicate: boolean }[] };
    expect(body.results.map((result) => result.duplicate)).toEqual([true, true, true]);
    // The same recordId observed another week: another partition, still the same record id.
    const moved = { ...rebased(legacyRecord(), now - 14 * DAY, "x"), recordId: records[0]?.recordId };
    const conflict = await post([moved]);
    expect(conflict.status).toBe(409);
    expect(await readRecords()).toEqual(before);
  });

  it("stores a new record after the old seqs, and one id sent by concurrent batches at other times once", async () => {
    const fresh = rebased(legacyRecord(), now - 1000, "fresh");
    expect((await post([fresh])).status).toBe(200);
    const after = await readRecords();
    expect(after).toHaveLength(4);
    expect(BigInt(after[3]?.seq ?? 0)).toBeGreaterThan(BigInt(before[2]?.seq ?? 0));
    for (let round = 0; round < 10; round++) {
      const id = `race-${round}`;
      const variants = [0, 1, 2, 3].map((i) => ({
        ...rebased(legacyRecord(), now - i * 8 * DAY, `race-${round}-${i}`),
        recordId: id,
      }));
      const statuses = await Promise.all(variants.map(async (variant) => (await post([variant])).status));
      expect(
        statuses.filter((status) => status === 200),
        statuses.join(),
      ).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(3);
      const { rows } = await client.query("select 1 from health_records where record_id = $1", [id]);
      expect(rows).toHaveLength(1);
    }
  });

  it("makes the weeks back to a given time, moving their records out of DEFAULT (the bulk seed's path)", async () => {
    const sql = sqlOver(client);
    const transaction = transactionOver(client);
    const made = await ensureRecordPartitions(transaction, new Date(now), sql, new Date(now - 60 * DAY));
    const oldWeek = partitionOfWeek(weekStart(new Date(now - 60 * DAY)));
    expect(made).toContain(oldWeek.name);
    expect(made.length).toBeGreaterThanOrEqual(8);
    const { rows } = await client.query<{ record_id: string }>(`select record_id from ${oldWeek.name}`);
    expect(rows.map((row) => row.record_id)).toEqual([records[1]?.recordId]);
    const { rows: left } = await client.query<{ record_id: string }>(
      "select record_id from health_records_default",
    );
    expect(left.map((row) => row.record_id)).toEqual([records[2]?.recordId]);
  });
});
