import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffChainRollups } from "@/lib/server/db/chain-rollup-check";
import { foldChainRollupDeltas, rebuildChainRollups } from "@/lib/server/db/chain-rollups";
import { createTestDatabase } from "@/tests/support/test-database";

// The rollups' `unseen` bits (contract v1.2's layers not seen) arrived after chains with such layers were stored: the
// migration moves those chains' counts to their `unseen` rows as deltas. Rollups counted before it (every chain
// under unseen 0, as the old key had no such column) must agree with a full count of `chains` once its statement ran,
// before and after the fold.
const migrationsDir = path.resolve(import.meta.dirname, "../../prisma/migrations");
const folder = readdirSync(migrationsDir).find((name) => name.endsWith("_rollups_unseen_layers"));
const migrationSql = readFileSync(path.join(migrationsDir, folder ?? "missing", "migration.sql"), "utf8");
const backfill = migrationSql.slice(migrationSql.indexOf('INSERT INTO "chain_rollup_deltas"'));

const HOUR = 3_600_000;
const edge = Math.floor(Date.now() / HOUR) * HOUR - 30 * HOUR;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
const sql = {
  query: async (text: string, values: unknown[] = []) => (await client.query(text, values)).rows,
  execute: async (text: string, values: unknown[] = []) => (await client.query(text, values)).rowCount ?? 0,
};

/** Reasons by n % 6: saw everything, the handshake unseen (deciding, or after another reason), the catalog, both. */
const REASONS = `case n % 6
    when 0 then array['outcome.verified']
    when 1 then array['session.not_observed']
    when 2 then array['request.tool_error', 'catalog.not_observed']
    when 3 then array['session.not_observed', 'catalog.not_observed', 'outcome.weak_evidence']
    when 4 then array['catalog.not_observed', 'outcome.weak_evidence']
    else array['effect.unreconciled', 'session.not_observed', 'catalog.not_observed'] end`;

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  // Chains over two days and both sides of a day edge, written without deltas: the rollups are rebuilt below.
  await client.query(
    `insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq, observed_at,
        evaluated_at, client_name, client_version, transport, server_name, tool, evidence)
      select 'u:' || n, 's:' || n, case when n % 6 in (1, 3, 4) then 'unverified' else 'tool_failed' end, 'outcome',
        ${REASONS}, 'r:' || n, n,
        to_timestamp($1::bigint / 1000.0) + (n % 50) * interval '1 hour' + (n % 7) * interval '1 ms',
        now(), 'cli-' || (n % 2), '1', 'stdio', 'srv-' || (n % 3), case when n % 11 = 0 then null else 'tool-' || (n % 4) end,
        case when n % 5 = 0 then 'weak' end
      from generate_series(1, 600) n`,
    [edge],
  );
}, 120_000);

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

describe("the rollups_unseen_layers migration", () => {
  it("moves chains counted before it to their unseen rows, exact before and after the fold", async () => {
    await client.query("begin");
    await rebuildChainRollups(sql);
    await client.query("commit");
    expect(await diffChainRollups(sql)).toEqual([]);
    const unseenChains = await sql.query(
      "select count(*)::int as n from chains where reasons && array['session.not_observed', 'catalog.not_observed']",
    );
    expect(unseenChains[0]?.n).toBe(500);

    // As the rollups stood before the migration: the old key had no unseen, so every chain counted under 0.
    for (const [table, key] of [
      ["chain_rollups", "bucket, state, shadowed_state, server_name, tool, client_name, reason, weak"],
      ["chain_rollups_daily", "bucket, state, server_name, tool, reason, weak"],
    ]) {
      await client.query(`create temp table old_rows as
        select ${key}, sum(chains)::int as chains, min(first_observed_at) as first_observed_at,
          max(last_observed_at) as last_observed_at, max(last_written_at) as last_written_at
        from ${table} group by ${key}`);
      await client.query(`delete from ${table}`);
      await client.query(`insert into ${table} (${key}, unseen, chains, first_observed_at, last_observed_at,
          last_written_at)
        select ${key}, 0, chains, first_observed_at, last_observed_at, last_written_at from old_rows`);
      await client.query("drop table old_rows");
    }
    const before = await diffChainRollups(sql);
    expect(before.filter((d) => d.rollup === "chain_rollups").length).toBeGreaterThan(0);
    expect(before.filter((d) => d.rollup === "chain_rollups_daily").length).toBeGreaterThan(0);

    await client.query(backfill);
    expect(await diffChainRollups(sql)).toEqual([]);

    await client.query("begin");
    while ((await foldChainRollupDeltas(sql, 10_000)) > 0) {}
    await client.query("commit");
    const pending = await sql.query("select count(*)::int as n from chain_rollup_deltas");
    expect(pending[0]?.n).toBe(0);
    expect(await diffChainRollups(sql)).toEqual([]);
    const byBits = await sql.query(
      "select unseen, sum(chains)::int as n from chain_rollups group by unseen having sum(chains) <> 0 order by 1",
    );
    expect(byBits).toEqual([
      { unseen: 0, n: 100 },
      { unseen: 1, n: 100 },
      { unseen: 2, n: 100 },
      { unseen: 3, n: 100 },
      { unseen: 6, n: 100 },
      { unseen: 7, n: 100 },
    ]);
  });
});
