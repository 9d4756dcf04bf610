/**
 * PostgreSQL CPU of each ingestion statement (profiling aid, not a benchmark): `npx tsx scripts/profile-ingest-statements.ts`.
 * The bench's workload stored in-process by saveRecords on a throwaway cluster, one batch at a time and the rollup
 * fold every PROFILE_FOLD_EVERY batches (PROFILE_CONCURRENT=1: three collectors and a 1 s fold timer, as the app
 * runs them); each statement's backend CPU read from /proc/<backend>/schedstat (ns) before and after it (COPY not
 * counted). PROFILE_FRESH_EVERY=N opens fresh connections every N batches; PROFILE_EXPLAIN='<sql with $1 ids, $2
 * count>' prints its custom and generic plans at the end. Runs in an older checkout too (no fold there), for a
 * before/after by statement.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../lib/server/db/embedded";
import { applyMigrations } from "../lib/server/db/migrate";
import { collectors, inParallel, makeRecords } from "./ingest-bench-support";

const TOTAL = Number(process.env.PROFILE_RECORDS ?? 20_000);
const SIZE = Number(process.env.PROFILE_BATCH ?? 100);
const FOLD_EVERY = Number(process.env.PROFILE_FOLD_EVERY ?? 20);
const WARM = Number(process.env.PROFILE_WARM ?? 5_000);
// PROFILE_CONCURRENT=1: three collectors at once and the fold on a 1 s timer, as the app runs them.
const FRESH_EVERY = Number(process.env.PROFILE_FRESH_EVERY ?? 0);
const CONCURRENT = process.env.PROFILE_CONCURRENT === "1";

/** CPU ms of the cluster: every postgres process alive, plus what the postmaster's exited children used. */
function clusterCpuMs(postmaster: number): number {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      if (Number(pid) === postmaster) total += (Number(fields[13]) + Number(fields[14])) * 10;
      if (Number(pid) !== postmaster && Number(fields[1]) !== postmaster) continue;
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {}
  }
  return total;
}

const cpuNs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);

const totals = new Map<string, { calls: number; ns: number }>();
let counting = false;
const labelOf = (text: string) => {
  const prepared = /receipt_[a-z_]+/.exec(text);
  return (prepared?.[0] ?? text.replace(/\s+/g, " ").trim().slice(0, 70)).slice(0, 70);
};
const original = pg.Client.prototype.query;
// biome-ignore lint/suspicious/noExplicitAny: wrapping pg's overloaded query
(pg.Client.prototype as any).query = function (this: pg.Client, ...args: any[]) {
  const config = args[0];
  const text: string | undefined =
    typeof config === "string" ? config : typeof config?.text === "string" ? config.text : undefined;
  const name: string | undefined = typeof config === "object" ? config?.name : undefined;
  // biome-ignore lint/suspicious/noExplicitAny: see above
  const pid = (this as any).processID as number | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: see above
  const result = (original as any).apply(this, args);
  if (!counting || !pid || text === undefined || typeof result?.then !== "function") return result;
  const before = cpuNs(pid);
  const label = name ?? labelOf(text);
  return result.then((value: unknown) => {
    const entry = totals.get(label) ?? { calls: 0, ns: 0 };
    entry.calls += 1;
    entry.ns += cpuNs(pid) - before;
    totals.set(label, entry);
    return value;
  });
};

const dataDir = mkdtempSync(path.join(tmpdir(), "receipt-profile-"));
const server = await startEmbeddedPostgres(path.join(dataDir, "pg"));
try {
  const admin = new pg.Client({ connectionString: server.serverUrl("postgres") });
  await admin.connect();
  await admin.query("create database profile");
  await admin.end();
  const url = server.serverUrl("profile");
  await applyMigrations(url);
  process.env.DATABASE_URL = url;
  const { prepareRecords } = await import("../lib/server/ingest/prepare-records");
  const { saveRecords } = await import("../lib/server/ingest/store-records");
  const { getPool } = await import("../lib/server/db/client");
  // A build before the rollups has no fold.
  const foldRollups = await import("../lib/server/rollups/fold-job").then(
    (m) => m.foldRollups,
    () => async () => false,
  );
  const run = async (prefix: string, total: number) => {
    const streams = collectors(makeRecords(prefix, total), SIZE);
    if (CONCURRENT) {
      const timer = setInterval(() => void foldRollups(), 1000);
      await inParallel(streams, async (batch) => {
        await saveRecords(await prepareRecords(batch));
      });
      clearInterval(timer);
      await foldRollups();
      return;
    }
    let n = 0;
    for (let i = 0; streams.some((s) => i < s.length); i++) {
      for (const stream of streams) {
        const batch = stream[i];
        if (!batch) continue;
        await saveRecords(await prepareRecords(batch));
        if (++n % FOLD_EVERY === 0) await foldRollups();
        // PROFILE_FRESH_EVERY: a new pool (fresh backends) every so many batches, as after the pool's idle timeout.
        if (FRESH_EVERY && n % FRESH_EVERY === 0) await getPool().end();
      }
    }
    await foldRollups();
  };
  await run("warm", WARM);
  counting = true;
  const node0 = process.cpuUsage();
  const cluster0 = clusterCpuMs(server.postmasterPid ?? 0);
  const started = performance.now();
  await run("measured", TOTAL);
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const clusterUs = ((clusterCpuMs(server.postmasterPid ?? 0) - cluster0) * 1000) / TOTAL;
  const node = process.cpuUsage(node0);
  counting = false;
  if (process.env.PROFILE_EXPLAIN) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    client.on("error", () => {});
    for (const mode of ["force_custom_plan", "force_generic_plan"]) {
      await client.query(`set plan_cache_mode = ${mode}`);
      await client.query(`prepare p${mode} as ${process.env.PROFILE_EXPLAIN}`);
      const ids = makeRecords("measured", 3000)
        .slice(2000)
        .map((r) => r.recordId);
      const list = ids.map((id) => `'${id}'`).join(",");
      const plan = await client
        .query(`explain (analyze, buffers) execute p${mode}(array[${list}], 1000)`)
        .catch((e: Error) => ({ rows: [{ "QUERY PLAN": e.message }] }));
      console.log(mode, plan.rows.map((r) => r["QUERY PLAN"]).join("\n"));
    }
    await client.end();
  }
  const rows = [...totals.entries()].sort((a, b) => b[1].ns - a[1].ns);
  const sum = rows.reduce((s, [, e]) => s + e.ns, 0);
  console.log(`${TOTAL} records, batch ${SIZE}, fold every ${FOLD_EVERY} batches`);
  console.log(`${Math.round(TOTAL / seconds)} records/s; cluster CPU µs/record ${clusterUs.toFixed(1)}`);
  console.log(`node CPU µs/record ${((node.user + node.system) / TOTAL).toFixed(1)}`);
  console.log(`total backend CPU µs/record ${(sum / 1000 / TOTAL).toFixed(1)}`);
  for (const [label, e] of rows) {
    console.log(
      `${((e.ns / 1000 / TOTAL).toFixed(2)).padStart(8)} µs/rec  ${String(e.calls).padStart(6)} calls  ${(e.ns / 1000 / e.calls).toFixed(0).padStart(7)} µs/call  ${label}`,
    );
  }
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
