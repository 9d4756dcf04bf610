// npx tsx scripts/bench-dashboard.ts [--chains 100000] [--seed-path http|bulk] [--data-dir DIR] [--runs 30] [--seed-only]
// Seeds N chains into a throwaway embedded PostgreSQL (or DIR, reused when it already holds the data set): up to
// 100,000 through the real ingestion path (scripts/db-seed.ts), above that by the bulk path (scripts/seed-bulk.ts:
// COPY, 30 days). Starts the production build on it, signs in, and times every dashboard read: the chain list in
// every filter combination the UI offers, the aggregates, queues, detail reads and pages. Prints a Markdown table
// for docs/BENCHMARKS.md and the load average; exits 1 when any read's p95 is over its budget (BUDGET_MS).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { freePort, type RunningDatabase } from "../lib/server/db/embedded";
import { spawnNext } from "../lib/server/next-server";
import { BUDGET_MS, dashboardRequests, type Timed, timeRequest } from "./bench/dashboard-requests";

const { values } = parseArgs({
  options: {
    chains: { type: "string", default: "100000" },
    "data-dir": { type: "string" },
    runs: { type: "string", default: "30" },
    "seed-path": { type: "string" },
    days: { type: "string", default: "30" },
    "seed-only": { type: "boolean", default: false },
  },
});
const root = path.resolve(import.meta.dirname, "..");
const BENCH_USER = { username: "bench", password: "bench-password" };
const target = Number(values.chains);
const runs = Number(values.runs);
const seedPath = values["seed-path"] ?? (target > 100_000 ? "bulk" : "http");
if (seedPath !== "bulk" && seedPath !== "http") {
  console.error("--seed-path is bulk or http");
  process.exit(1);
}
const dataDir = values["data-dir"] ?? mkdtempSync(path.join(tmpdir(), "receipt-bench-"));
process.env.RECEIPT_DATA_DIR = dataDir;
delete process.env.DATABASE_URL; // always the throwaway cluster, never a developer's database

if (!values["seed-only"] && !existsSync(path.join(root, ".next/BUILD_ID"))) {
  console.error("no production build: run `npm run build` first");
  process.exit(1);
}

const { openDatabase } = await import("../lib/server/db/connection-string");
const { applyMigrations } = await import("../lib/server/db/migrate");
let db = await openDatabase({ create: true });
const running: { app?: ReturnType<typeof spawnNext> } = {};
try {
  await applyMigrations(db.url);
  const missing = target - (await countChains(db.url));
  if (missing > 0 && seedPath === "bulk") {
    db = await seedInBulk(db, missing);
  } else if (missing > 0) {
    console.error(`seeding ${missing} chains through prepareRecords + saveRecords…`);
    const seed = spawnSync(
      "npx",
      ["tsx", "scripts/db-seed.ts", "--chains", String(missing), "--no-triage", "--seed", "42"],
      { cwd: root, env: { ...process.env, DATABASE_URL: db.url }, stdio: "inherit" },
    );
    if (seed.status !== 0) throw new Error("seed failed");
  }
  const sql = new pg.Client({ connectionString: db.url });
  // The cluster stops in `finally` when a read fails: that error is the one to see, not this connection's end.
  sql.on("error", () => {});
  await sql.connect();
  if (seedPath === "http") await sql.query("vacuum analyze"); // what autovacuum does on a live database
  const chains = Number((await sql.query("select count(*) as n from chains")).rows[0].n);
  const records = Number((await sql.query("select count(*) as n from health_records")).rows[0].n);
  const bytes = Number((await sql.query("select pg_database_size(current_database()) as n")).rows[0].n);
  console.error(
    `${chains} chains, ${records} records, ${(bytes / 1024 ** 3).toFixed(1)} GiB on disk (${Math.round(bytes / chains)} bytes a chain)`,
  );
  if (values["seed-only"]) await sql.end();
  else await timeReads(sql, chains, records);
} finally {
  if (running.app?.pid) process.kill(-running.app.pid, "SIGTERM");
  await db.stop();
  if (!values["data-dir"]) rmSync(dataDir, { recursive: true, force: true });
}
// A run over budget ended with 0 although exitCode was 1 (something at exit, likely the embedded cluster's hook):
// the verdict is passed on explicitly.
process.exit(process.exitCode ?? 0);

/** Starts the production build on the seeded database (`app`, stopped at the end) and times every read. */
async function timeReads(sql: pg.Client, chains: number, records: number) {
  // A chain with history and a session of several chains: the detail pages' heavier case.
  const sample = (
    await sql.query(
      `select chain_id, session_id from chains
        where state = 'effect_unknown' and session_id in (select session_id from chains where state = 'effect_unknown'
          group by session_id having count(*) > 2 limit 1)
        limit 1`,
    )
  ).rows[0];
  await ensureBenchAdmin(sql);
  await sql.end();

  const port = await freePort();
  running.app = spawnNext(["start", "--port", String(port), "--hostname", "127.0.0.1"], {
    // Retention off: the seeded days reach back to the retention default, and pruning while timing would both
    // load the machine and shrink the set.
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_ENV: "production",
      RECEIPT_RETENTION: "0",
    },
    stdio: "ignore",
    detached: true,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base);
  const cookie = await signIn(base);

  const loadBefore = loadavg().map((n) => n.toFixed(1));
  const results: Timed[] = [];
  for (const request of await dashboardRequests(base, cookie, sample)) {
    const timed = await timeRequest(base, cookie, request, runs);
    results.push(timed);
    console.error(
      `${timed.label}: p50 ${timed.p50}, p95 ${timed.p95}${timed.failed ? `, HTTP ${timed.failed}` : ""}`,
    );
  }
  const loadAfter = loadavg().map((n) => n.toFixed(1));
  console.log(
    `\n${chains.toLocaleString("en-US")} chains (${records.toLocaleString("en-US")} records), up to ${runs} sequential requests each after 3 warm-ups (fewer past 20 s), localhost; load average (1/5/15 min) ${loadBefore.join("/")} before, ${loadAfter.join("/")} after:\n`,
  );
  console.log(
    "| request | kind | runs | p50 ms | p95 ms | max ms | budget |\n|---|---|---:|---:|---:|---:|---|",
  );
  for (const r of results) {
    const over = r.failed ? `**HTTP ${r.failed}**` : r.p95 > BUDGET_MS ? "**over**" : "ok";
    console.log(`| \`${r.label}\` | ${r.kind} | ${r.runs} | ${r.p50} | ${r.p95} | ${r.max} | ${over} |`);
  }
  const slow = results.filter((r) => r.failed || r.p95 > BUDGET_MS);
  console.log(`\n${results.length - slow.length} of ${results.length} reads within p95 ≤ ${BUDGET_MS} ms`);
  if (slow.length > 0) {
    console.error(`over ${BUDGET_MS} ms at p95: ${slow.map((r) => r.label).join(", ")}`);
    process.exitCode = 1;
  }
}

async function countChains(url: string): Promise<number> {
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    return Number((await sql.query("select count(*) as n from chains")).rows[0].n);
  } finally {
    await sql.end();
  }
}

/**
 * The bulk seed on a cluster this script started: restarted with `wal_level = minimal` for the load (COPY into the
 * tables truncated in its transaction writes no WAL), then restarted with the defaults. Returns the running cluster.
 */
async function seedInBulk(running: RunningDatabase, chains: number): Promise<RunningDatabase> {
  const { seedBulk } = await import("./seed-bulk");
  let db = running;
  if (db.startedHere) db = await restartWithWal(db, "minimal");
  await seedBulk(db.url, {
    chains,
    days: Number(values.days),
    seed: 42,
    dataDir: db.startedHere ? dataDir : undefined,
  });
  if (db.startedHere) db = await restartWithWal(db, "default");
  return db;
}

async function restartWithWal(
  running: RunningDatabase,
  wal: "minimal" | "default",
): Promise<RunningDatabase> {
  const { setMinimalWal } = await import("./seed-bulk-schema");
  const sql = new pg.Client({ connectionString: running.url });
  await sql.connect();
  await setMinimalWal(sql, wal === "minimal");
  await sql.end();
  await running.stop();
  // Until its postmaster.pid is gone, the cluster counts as running and would be handed back on its old port.
  const pidFile = path.join(dataDir, "pg", "postmaster.pid");
  for (let i = 0; i < 600 && existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
  // The seed set DATABASE_URL to the cluster just stopped (for the app code it runs): openDatabase would take it and
  // hand back that address instead of starting the cluster again.
  delete process.env.DATABASE_URL;
  return openDatabase({ create: true });
}

async function waitForHealth(base: string) {
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the app did not start");
}

/**
 * The benchmark's own admin, put straight into the database: a seeded set already has users (the demo triage's), so
 * first-run setup is closed, and every read the dashboard offers needs a role that may see it.
 */
async function ensureBenchAdmin(sql: pg.Client): Promise<void> {
  const { hashPassword } = await import("../lib/server/auth/password");
  await sql.query(
    `insert into users (id, username, password_hash, role) values (gen_random_uuid(), $1, $2, 'admin')
      on conflict (username) do update set password_hash = excluded.password_hash, role = 'admin', disabled_at = null`,
    [BENCH_USER.username, await hashPassword(BENCH_USER.password)],
  );
}

async function signIn(base: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(BENCH_USER),
  });
  if (!response.ok) throw new Error(`sign-in failed: ${response.status}`);
  return (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}
