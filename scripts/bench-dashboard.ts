// npx tsx scripts/bench-dashboard.ts [--chains 100000] [--data-dir DIR] [--runs 30]
// Seeds N chains through the real ingestion path into a throwaway embedded PostgreSQL (or DIR, reused when it already
// holds the data set), starts the production build on it, signs in, and times every list endpoint and page the
// dashboard reads. Prints a Markdown table for docs/BENCHMARKS.md; exits 1 when a list endpoint's p95 is over 300 ms.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { freePort } from "../lib/server/db/embedded";
import { spawnNext } from "../lib/server/next-server";
import { dashboardRequests, type Timed, timeRequest } from "./bench/dashboard-requests";

const { values } = parseArgs({
  options: {
    chains: { type: "string", default: "100000" },
    "data-dir": { type: "string" },
    runs: { type: "string", default: "30" },
  },
});
const root = path.resolve(import.meta.dirname, "..");
const target = Number(values.chains);
const runs = Number(values.runs);
const dataDir = values["data-dir"] ?? mkdtempSync(path.join(tmpdir(), "receipt-bench-"));
process.env.RECEIPT_DATA_DIR = dataDir;
delete process.env.DATABASE_URL; // always the throwaway cluster, never a developer's database

if (!existsSync(path.join(root, ".next/BUILD_ID"))) {
  console.error("no production build: run `npm run build` first");
  process.exit(1);
}

const { openDatabase } = await import("../lib/server/db/connection-string");
const { applyMigrations } = await import("../lib/server/db/migrate");
const db = await openDatabase();
let app: ReturnType<typeof spawnNext> | null = null;
try {
  await applyMigrations(db.url);
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const count = async () => Number((await sql.query("select count(*) as n from chains")).rows[0].n);
  if ((await count()) < target) {
    console.error(`seeding ${target} chains through prepareRecords + saveRecords…`);
    const seed = spawnSync(
      "npx",
      [
        "tsx",
        "scripts/db-seed.ts",
        "--chains",
        String(target - (await count())),
        "--no-triage",
        "--seed",
        "42",
      ],
      {
        cwd: root,
        env: { ...process.env, DATABASE_URL: db.url },
        stdio: "inherit",
      },
    );
    if (seed.status !== 0) throw new Error("seed failed");
  }
  await sql.query("vacuum analyze"); // what autovacuum does on a live database; keeps plans realistic
  const chains = await count();
  const sample = (
    await sql.query("select chain_id, session_id from chains where state = 'effect_unknown' limit 1")
  ).rows[0];
  await sql.end();

  const port = await freePort();
  app = spawnNext(["start", "--port", String(port), "--hostname", "127.0.0.1"], {
    env: { ...process.env, DATABASE_URL: db.url, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    stdio: "ignore",
    detached: true,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base);
  const cookie = await signIn(base);

  const results: Timed[] = [];
  for (const request of await dashboardRequests(base, cookie, sample)) {
    results.push(await timeRequest(base, cookie, request, runs));
  }
  console.log(
    `\n${chains.toLocaleString("en-US")} chains, ${runs} sequential requests each after 3 warm-ups, localhost:\n`,
  );
  console.log("| request | kind | p50 ms | p95 ms | max ms |\n|---|---|---:|---:|---:|");
  for (const r of results) console.log(`| \`${r.label}\` | ${r.kind} | ${r.p50} | ${r.p95} | ${r.max} |`);
  const slow = results.filter((r) => r.kind === "list" && r.p95 > 300);
  if (slow.length > 0) {
    console.error(`\nover 300 ms at p95: ${slow.map((r) => r.label).join(", ")}`);
    process.exitCode = 1;
  }
} finally {
  if (app?.pid) process.kill(-app.pid, "SIGTERM");
  await db.stop();
  if (!values["data-dir"]) rmSync(dataDir, { recursive: true, force: true });
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

/** First-run setup on a fresh database, sign-in on a reused one: either way a session cookie. */
async function signIn(base: string): Promise<string> {
  const init = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bench", password: "bench-password" }),
  };
  let response = await fetch(`${base}/api/auth/setup`, init);
  if (response.status === 409) response = await fetch(`${base}/api/auth/sign-in`, init);
  if (!response.ok) throw new Error(`sign-in failed: ${response.status}`);
  return (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}
