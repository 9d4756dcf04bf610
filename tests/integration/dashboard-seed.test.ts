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

it("seeds exactly the chains asked for, in most states, with demo triage and reconciliation", async () => {
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
    expect(await count("select count(*) as n from chain_state_changes where cause = 'reconcile'")).toBe(1);
    expect(await count("select count(distinct action) as n from triage_events")).toBeGreaterThanOrEqual(4);
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
