import { spawnSync } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { Stats, Trend } from "@/lib/dashboard/api-types";
import { deleteChainsKeepingRollups, foldChainRollupDeltas } from "@/lib/server/db/chain-rollups";
import { diffChainRollups } from "@/lib/server/db/chain-rollup-check";
import type { Sql } from "@/lib/server/db/sql";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { rebased } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { runningWriteRecord } from "@/tests/support/record-builders";
import { seedCases } from "@/tests/support/seed-cases";
import { createTestDatabase } from "@/tests/support/test-database";

// The rollups against a full count after random workloads through the real app: ingestion (late records moving a
// chain to an older hour, newer ones to another state), deadline expiry, reconciliation and deletes, with folds
// running while records arrive. `npm run rollups -- check` must find no difference, folded or not.
const root = path.resolve(import.meta.dirname, "../..");
const HOUR = 3_600_000;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let key: string;
let ui: ReturnType<typeof dashboardClient>;
let client: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  // Folds only when this test runs them, so the unfolded deltas are checked too.
  app = await startApp(db.url, { RECEIPT_DEADLINE_TICK_MS: "100", RECEIPT_ROLLUP_FOLD_MS: String(HOUR) });
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await app?.stop();
  await db?.drop();
});

/** A small deterministic generator: a failing run can be replayed from its seed. */
function random(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: T[]) => items[Math.floor(next() * items.length)] as T,
  };
}

function rollupsCli(command: string) {
  return spawnSync(process.execPath, ["--import", "tsx", "scripts/rollups.ts", command], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: db.url },
    encoding: "utf8",
  });
}

function expectNoDifference(command: "check" | "fold") {
  const result = rollupsCli(command);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/^0 difference\(s\)/m);
  expect(result.status).toBe(0);
}

const pgSql: () => Sql = () => ({
  query: async (statement, values = []) =>
    (await client.query(typeof statement === "string" ? statement : statement.text, [...values])).rows,
  execute: async (statement, values = []) =>
    (await client.query(typeof statement === "string" ? statement : statement.text, [...values])).rowCount ??
    0,
});

/** A record of chain `chainId` shaped like one seed case, observed at `observedAtMs`, on one of a few servers. */
function recordOf(
  rand: ReturnType<typeof random>,
  chainId: string,
  observedAtMs: number,
  tag: string,
): HealthRecord {
  const seed = rand.pick(seedCases());
  const record = rebased(seed.record, observedAtMs, tag);
  record.chainId = chainId;
  record.session.id = `sess:${chainId}`;
  if (record.session.server) record.session.server.name = rand.pick(["reports-mcp", "files-mcp", "crm-mcp"]);
  // A chain's labels change between its records too: the label rollup takes the old pairs out, the new ones in.
  record.labels = rand.pick<Record<string, string>>([
    {},
    { env: "prod" },
    { env: "prod", team: "a" },
    { team: "b", url: "x:y" },
  ]);
  if (record.call && seed.expectedState === "working") {
    record.call.deadlineMs = 4 * HOUR;
    record.call.inactivityMs = 2 * HOUR;
  }
  return record;
}

/** An in-flight write whose deadline passes in `deadlineMs`: the deadline job moves it out of `working`. */
function expiringWrite(chainId: string, deadlineMs: number, n: number): HealthRecord {
  return runningWriteRecord(deadlineMs, (_call, r) => {
    r.recordId = `rec:${chainId}:${n}`;
    r.chainId = chainId;
    r.session.id = `sess:${chainId}`;
  });
}

async function chainStates(): Promise<{ chain_id: string; state: string }[]> {
  return (await client.query("select chain_id, state from chains")).rows;
}

/** What the workloads did, so the test shows it exercised every writer. */
const done = { deleted: 0, reconciled: 0, folded: 0 };

async function runWorkload(seed: number, steps: number) {
  const rand = random(seed);
  const api = apiClient(app.baseUrl, key);
  const chains = Array.from({ length: 40 }, (_, i) => `chain:rollups:${seed}:${i}`);
  const now = Date.now();
  for (let step = 0; step < steps; step++) {
    const action = rand.int(10);
    if (action < 6) {
      // A batch over random chains, observed anywhere in the last 30 hours: older records arrive late.
      const batch = new Map<string, HealthRecord>();
      for (let i = 0; i < 1 + rand.int(12); i++) {
        const chainId = rand.pick(chains);
        batch.set(
          chainId,
          recordOf(rand, chainId, now - rand.int(30 * HOUR), `rollups-${seed}-${step}-${i}`),
        );
      }
      const response = await api.post([...batch.values()]);
      expect(response.status, await response.text()).toBe(200);
    } else if (action === 6) {
      const chainId = `chain:rollups:${seed}:expiring:${step}`;
      chains.push(chainId);
      expect((await api.post([expiringWrite(chainId, 200 + rand.int(400), step)])).status).toBe(200);
    } else if (action === 7) {
      const doubtful = (await chainStates()).filter((c) => c.state === "effect_unknown");
      if (doubtful.length > 0) {
        const chainId = rand.pick(doubtful).chain_id;
        const body = rand.int(2) === 0 ? { status: "absent" } : { status: "committed", receipt: `r/${step}` };
        const response = await ui.post(`/api/v1/chains/${encodeURIComponent(chainId)}/reconcile`, body);
        expect(response.status).toBe(200);
        done.reconciled++;
      }
    } else if (action === 8) {
      const ids = [rand.pick(chains), rand.pick(chains)];
      await client.query("begin");
      done.deleted += await deleteChainsKeepingRollups(pgSql(), ids);
      await client.query("commit");
    } else {
      // A partial fold: some deltas move, the others stay pending.
      await client.query("begin");
      done.folded += await foldChainRollupDeltas(pgSql(), 1 + rand.int(40));
      await client.query("commit");
    }
  }
}

/** What `/api/v1/stats` answered before the rollups: a full count of `chains`. */
async function statsFromChains(since: Date) {
  const rows: { state: string; shadowed_state: string | null; n: number }[] = (
    await client.query(
      "select state, shadowed_state, count(*)::int as n from chains where observed_at >= $1 group by 1, 2",
      [since],
    )
  ).rows;
  const states: Record<string, number> = {};
  const shadowed: Record<string, number> = {};
  for (const row of rows) {
    states[row.state] = (states[row.state] ?? 0) + row.n;
    if (row.shadowed_state) shadowed[row.shadowed_state] = (shadowed[row.shadowed_state] ?? 0) + row.n;
  }
  return { states, shadowed };
}

/** Chains per state observed in [from, to), counted from `chains` alone. */
async function statsBetweenFromChains(from: Date, to: Date) {
  const { rows } = await client.query(
    "select state, count(*)::int as n from chains where observed_at >= $1 and observed_at < $2 group by 1",
    [from, to],
  );
  return Object.fromEntries(rows.map((row: { state: string; n: number }) => [row.state, row.n])) as Record<
    string,
    number
  >;
}

const nonZero = (counts: Record<string, number>) =>
  Object.fromEntries(Object.entries(counts).filter(([, n]) => n));

describe("rollups after random workloads", () => {
  it("equal a full count of chains, unfolded, while folding and folded; stats and trend answer as a full count", async () => {
    for (const seed of [1, 2, 3]) {
      await runWorkload(seed, 40);
      // Let the deadline job expire the in-flight writes (it writes rollup deltas too).
      await new Promise((r) => setTimeout(r, 1200));
      // The check's own query, in-process (the CLI runs it at the end): one snapshot, rollups and pending deltas.
      await client.query("begin isolation level repeatable read");
      const differences = await diffChainRollups(pgSql());
      await client.query("commit");
      expect(differences).toEqual([]);
      const since = new Date(Date.now() - 7 * HOUR - 1234);
      const stats = await ui.json<Stats>(`/api/v1/stats?since=${since.toISOString()}`);
      const expected = await statsFromChains(since);
      expect(nonZero(stats.states)).toEqual(expected.states);
      expect(nonZero(stats.shadowed)).toEqual(expected.shadowed);
      expect(stats.total).toBe(Object.values(expected.states).reduce((a, b) => a + b, 0));
      // The previous window (as long, just before) is a full count of its range too, both edges partial hours.
      const previous = stats.previous;
      expect(Date.parse(previous?.to ?? "")).toBe(since.getTime());
      expect(Date.parse(previous?.to ?? "") - Date.parse(previous?.from ?? "")).toBeGreaterThanOrEqual(
        7 * HOUR,
      );
      const before = await statsBetweenFromChains(new Date(previous?.from ?? ""), since);
      for (const [state, change] of Object.entries(previous?.change.states ?? {})) {
        expect(change.previous, state).toBe(before[state] ?? 0);
        expect(change.delta, state).toBe(
          (stats.states[state as keyof Stats["states"]] ?? 0) - (before[state] ?? 0),
        );
      }
      expect(previous?.total).toBe(Object.values(before).reduce((a, b) => a + b, 0));
      expect(previous?.total).toBeGreaterThan(0);
      const trend = await ui.json<Trend>("/api/v1/stats/trend?window=24h");
      const trendTotal = trend.buckets.reduce(
        (sum, bucket) => sum + Object.values(bucket.counts).reduce((a, b) => a + (b ?? 0), 0),
        0,
      );
      const start = new Date(Date.parse(trend.buckets[0]?.start ?? ""));
      const { rows } = await client.query(
        "select count(*)::int as n from chains where observed_at >= $1 and observed_at <= now()",
        [start],
      );
      expect(trendTotal).toBe(rows[0].n);
    }
    expectNoDifference("fold");
    const pending = await client.query("select count(*)::int as n from chain_rollup_deltas");
    expect(pending.rows[0].n).toBe(0);
    const total = await client.query("select count(*)::int as n from chains");
    expect(total.rows[0].n).toBeGreaterThan(50);
    // Every writer took part: deletes, partial folds, reconciliation, the deadline job, chains with several records.
    expect(done.deleted).toBeGreaterThan(0);
    expect(done.folded).toBeGreaterThan(0);
    expect(done.reconciled).toBeGreaterThan(0);
    const causes = await client.query("select distinct cause from chain_state_changes order by 1");
    expect(causes.rows.map((row) => row.cause)).toEqual(["deadline", "reconcile", "record"]);
    const several = await client.query("select count(*)::int as n from chains where record_count > 1");
    expect(several.rows[0].n).toBeGreaterThan(0);
    // The label rollup took part: chains of several label sets, all folded (the expiring writes carry env=test).
    const labelled = await client.query(
      "select distinct label_key || '=' || label_value as pair from chain_label_rollups where chains > 0 order by 1",
    );
    expect(labelled.rows.map((row) => row.pair)).toEqual([
      "env=prod",
      "env=test",
      "team=a",
      "team=b",
      "url=x:y",
    ]);
    const labelSets = await client.query(
      "select count(distinct label_set)::int as n from chain_label_set_rollups where chains > 0",
    );
    expect(labelSets.rows[0].n).toBeGreaterThan(2);
  }, 240_000);

  it("a broken rollup is reported, and rebuild repairs it", async () => {
    // A count for an hour no chain was observed in.
    await client.query(
      "insert into chain_state_rollups (bucket, state, shadowed_state, chains) values ('2020-01-01', 'healthy', '', 1)",
    );
    // A day count one chain short (the hour rows left right): the check compares the day rollup on its own.
    await client.query(
      "update chain_rollups_daily set chains = chains - 1 where (bucket, state, server_name, tool, reason, weak) in (select bucket, state, server_name, tool, reason, weak from chain_rollups_daily where chains > 0 limit 1)",
    );
    const broken = rollupsCli("check");
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(/^chain_state_rollups\tcount\t/m);
    expect(broken.stdout).toMatch(/^chain_rollups_daily\tcount\t/m);
    const rebuilt = rollupsCli("rebuild");
    expect(rebuilt.status).toBe(0);
    expectNoDifference("check");
  }, 120_000);
});
