import { spawnSync } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase } from "@/tests/support/test-database";

// `npm run db:seed` gives a newcomer a living dashboard: many states, several servers, some triage already done,
// all through the real ingestion path (so every stored record validated and classified).
const root = path.resolve(import.meta.dirname, "../..");
let db: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

it("seeds exactly the chains asked for, in most states, with demo triage, reconciliation and the retry guard's story", async () => {
  const seed = spawnSync("npx", ["tsx", "scripts/db-seed.ts", "--chains", "400", "--seed", "7"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: db.url },
    encoding: "utf8",
  });
  expect(seed.status, seed.stderr).toBe(0);
  expect(seed.stderr).toMatch(/seeded 400 chains/);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const count = async (sql: string) => Number((await client.query(sql)).rows[0]?.n);
    expect(await count("select count(*) as n from chains")).toBe(400);
    expect(await count("select count(distinct state) as n from chains")).toBeGreaterThanOrEqual(8);
    expect(await count("select count(distinct server_name) as n from chains")).toBeGreaterThanOrEqual(5);
    expect(await count("select count(*) as n from chains where shadowed_state is not null")).toBeGreaterThan(
      0,
    );
    // One by the demo's on-call, one by the guard story's destination check.
    expect(await count("select count(*) as n from chain_state_changes where cause = 'reconcile'")).toBe(2);
    expect(await count("select count(distinct action) as n from triage_events")).toBeGreaterThanOrEqual(4);
    // The retry guard's story (issue 40): proceed, the write timed out, the retry refused, a real HTTP check found
    // the invoice and verified it, and the next retry is told it is already committed.
    expect(seed.stderr).toMatch(
      /demo retry guard story \(\/operations\/op%3Ainvoice-demo\w+\): first attempt: proceed; .*retry: reconcile_first; check demo-invoices: committed; retry after the check: already_committed/,
    );
    const decisions = await client.query(
      "select decision from operation_decisions where operation_key like 'op:invoice-%' order by id",
    );
    expect(decisions.rows.map((row) => row.decision)).toEqual([
      "proceed",
      "reconcile_first",
      "already_committed",
    ]);
    const story = await client.query(
      `select c.state, r.check_name, r.reconciled from chains c join check_runs r on r.chain_id = c.chain_id
        where c.chain_id like 'chain:op:invoice-%'`,
    );
    expect(story.rows).toEqual([{ state: "healthy", check_name: "demo-invoices", reconciled: true }]);
    // Spread over the overview's windows: the last hour, the last day and the week all have chains.
    expect(
      await count("select count(*) as n from chains where observed_at > now() - interval '1 hour'"),
    ).toBeGreaterThan(0);
    expect(
      await count("select count(*) as n from chains where observed_at < now() - interval '1 day'"),
    ).toBeGreaterThan(0);
  } finally {
    await client.end();
  }
});
