import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_STORED_AND_DRAW_SEQS, READ_STORED_BODIES } from "@/lib/server/db/records";
import { createTestDatabase } from "@/tests/support/test-database";

// Ingestion's stored-id lookup (records.ts) on a week's partition that has rows but no statistics yet, as every new
// week has until autovacuum analyzes it. A connection's first five executions of a prepared statement are planned
// with the parameters' values: a batch's ids given as a constant array were each guessed to match 0.5 % of the rows,
// so the plan read the whole partition. The lookup must stay on the partition's (record_id, observed_at) key.

const ROWS = 20_000;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let partition: string;

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const insert = (from: number, to: number) =>
    client.query(
      `insert into health_records (record_id, chain_id, session_id, observed_at, body, state, layer, reasons)
        select 'rec:plan-' || i, 'chain:plan-' || i / 3, 'sess:plan', now(), '{}', 'healthy', 'outcome', '{}'
        from generate_series($1::int, $2::int) i`,
      [from, to],
    );
  await insert(0, 0);
  const [row] = (await client.query("select tableoid::regclass::text as name from health_records limit 1"))
    .rows;
  partition = row.name;
  // No analyze may run while the test reads plans: the partition stays as a new week is, without statistics.
  await client.query(`alter table ${partition} set (autovacuum_enabled = false)`);
  await insert(1, ROWS - 1);
});
afterAll(async () => {
  await client?.end();
  await db?.drop();
});

/** The plan made with the parameters' values (an unnamed statement is planned so, as a connection's first five). */
async function customPlan(statement: string, values: unknown[]): Promise<string> {
  const rows = (await client.query(`explain ${statement}`, values)).rows;
  return rows.map((row) => row["QUERY PLAN"]).join("\n");
}

describe("stored-id lookup on a partition without statistics", () => {
  const ids = Array.from({ length: 1000 }, (_, i) => `rec:plan-${i * 7}`);

  it("the ids as constants read the whole partition (what the lookup avoids)", async () => {
    const plan = await customPlan("select record_id from health_records where record_id = any($1::text[])", [
      ids,
    ]);
    expect(plan).toContain(`Seq Scan on ${partition}`);
  });

  it("the lookup reads the partition's key, whatever the batch's size", async () => {
    for (const size of [1, 100, 1000]) {
      const plan = await customPlan(READ_STORED_AND_DRAW_SEQS.text, [ids.slice(0, size), size]);
      expect(plan, plan).not.toContain(`Seq Scan on ${partition}`);
      expect(plan, plan).toContain(`${partition}_record_id_observed_at_idx`);
    }
  });

  it("so does the read of stored bodies (a batch holding records stored already)", async () => {
    const plan = await customPlan(READ_STORED_BODIES, [ids]);
    expect(plan, plan).not.toContain(`Seq Scan on ${partition}`);
    expect(plan, plan).toContain(`${partition}_record_id_observed_at_idx`);
  });

  it("finds the stored ids among new ones", async () => {
    const asked = ["rec:plan-5", "rec:absent-1", `rec:plan-${ROWS - 1}`, "rec:absent-2"];
    const [row] = (await client.query({ ...READ_STORED_AND_DRAW_SEQS, values: [asked, asked.length] })).rows;
    expect([...row.stored].sort()).toEqual(["rec:plan-19999", "rec:plan-5"]);
    expect(row.seqs).toHaveLength(4);
  });
});
