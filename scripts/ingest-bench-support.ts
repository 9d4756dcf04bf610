/**
 * What the ingestion benches share (`bench-ingest.ts`, `bench-ingest-floor.ts`): the workload built from the seed
 * fixture, CPU time read from /proc, the load generator's POST, and the app on a throwaway database.
 */
import http from "node:http";
import { STATEMENT_STATS_SETTINGS, statementStats } from "./bench/statement-stats";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import pg from "pg";
import { startEmbeddedPostgres } from "../lib/server/db/embedded";
import { applyMigrations } from "../lib/server/db/migrate";
import type { HealthRecord } from "../lib/contract";
import { startApp } from "../tests/support/app-server";

const root = path.resolve(import.meta.dirname, "..");
export const IN_FLIGHT = 3;

const seeds = (
  JSON.parse(readFileSync(path.join(root, "tests/fixtures/seed-cases.json"), "utf8")) as {
    cases: { record: HealthRecord }[];
  }
).cases.map((c) => c.record);

export function makeRecords(prefix: string, count: number): HealthRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const record = structuredClone(seeds[i % seeds.length] as HealthRecord);
    const chain = Math.floor(i / 3);
    record.recordId = `rec:${prefix}-${i}`;
    record.chainId = `chain:${prefix}-${chain}`;
    // Sessions of four chains, as an agent run makes a few calls in one session.
    record.session.id = `sess:${prefix}-${Math.floor(chain / 4)}`;
    record.observedAt = new Date(Date.parse(record.observedAt) + (i % 3) * 1000).toISOString();
    return record;
  });
}

export function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * IN_FLIGHT collectors, each sending the sessions of its own agents one batch after the other, as real collectors
 * do. (Cutting one stream of records into batches sent concurrently would put a chain's records into two batches
 * in flight at once, and the second would wait for the first's chain lock: a contention no deployment has.)
 */
export function collectors<T extends { session: { id: string } }>(records: T[], size: number): T[][][] {
  const sessions = [...new Set(records.map((r) => r.session.id))];
  const collectorOf = new Map(sessions.map((id, i) => [id, i % IN_FLIGHT]));
  return Array.from({ length: IN_FLIGHT }, (_, c) =>
    batches(
      records.filter((r) => collectorOf.get(r.session.id) === c),
      size,
    ),
  );
}

export async function inParallel<T>(streams: T[][], send: (batch: T) => Promise<void>) {
  await Promise.all(
    streams.map(async (stream) => {
      for (const batch of stream) await send(batch);
    }),
  );
}

/**
 * CPU time (user + system, ms) a process has used, from /proc (clock ticks of 10 ms). `pid/task/tid` reads one
 * thread of it.
 */
export function cpuMsOf(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0; // the process ended
  }
}

/** The bench's own cluster: other clusters on a shared machine are not counted (set by startBenchApp). */
let ownPostmaster: number | null = null;

/** CPU time of each process of the bench's PostgreSQL (the postmaster and its children) alive now, by pid. */
export function postgresCpu(): Map<string, number> {
  const byPid = new Map<string, number>();
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
      const parent = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
      if (ownPostmaster === null || Number(pid) === ownPostmaster || parent === ownPostmaster) {
        byPid.set(pid, cpuMsOf(pid));
      }
    } catch {}
  }
  return byPid;
}

/** What PostgreSQL's processes spent since `before` (a backend that exited in between is not counted). */
export function postgresCpuSince(before: Map<string, number>): number {
  let total = 0;
  for (const [pid, ms] of postgresCpu()) total += ms - (before.get(pid) ?? 0);
  return total;
}

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

// node:http with keep-alive rather than fetch: the load generator shares the machine's two cores with the app and
// PostgreSQL, and fetch spent ~2.5 ms of CPU a request (undici on Node 20) that no deployment's server pays for.
export function request(
  agent: http.Agent,
  url: string,
  options: { method: "GET" | "POST"; key?: string; body?: string; expectedStatus?: number },
): Promise<void> {
  const { method, key, body, expectedStatus = 200 } = options;
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      {
        method,
        agent,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }),
          // As fetch sends it: the app compresses its answer, as it would for a real collector.
          "accept-encoding": "gzip, deflate",
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode === expectedStatus) return resolve();
          const raw = Buffer.concat(chunks);
          const text = response.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
          reject(new Error(`HTTP ${response.statusCode}: ${text.toString()}`));
        });
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

export function postRecords(
  agent: http.Agent,
  baseUrl: string,
  key: string,
  body: string,
  expectedStatus = 200,
): Promise<void> {
  return request(agent, `${baseUrl}/api/v1/records`, { method: "POST", key, body, expectedStatus });
}

/**
 * The production build (`next start`, run `npm run build` first) on a throwaway embedded PostgreSQL, with a key,
 * started as the tests start it (the same flags, and a clear error when there is no build or it does not come up).
 */
export async function startBenchApp(options: { statementStats?: boolean } = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "receipt-bench-"));
  // BENCH_PG_LOG=FILE: the cluster's log there, with every statement over 10 ms and every connection, by database
  // (which build's), to find what one build spends more on.
  const pgLog = process.env.BENCH_PG_LOG;
  const server = await startEmbeddedPostgres(path.join(dataDir, "pg"), {
    log: pgLog ? (line) => appendFileSync(pgLog, `${line}\n`) : undefined,
    ...(options.statementStats ? { settings: STATEMENT_STATS_SETTINGS } : {}),
  });
  ownPostmaster = server.postmasterPid;
  const admin = new pg.Client({ connectionString: server.serverUrl("postgres") });
  await admin.connect();
  if (pgLog) {
    await admin.query("alter system set log_min_duration_statement = '10ms'");
    await admin.query("alter system set log_line_prefix = '%m [%p] db=%d '");
    await admin.query("alter system set log_connections = 'on'");
    await admin.query("select pg_reload_conf()");
  }
  const createEmptyDatabase = async (name: string) => {
    await admin.query(`create database "${name}"`);
    return server.serverUrl(name);
  };
  const createDatabase = async (name: string) => {
    const url = await createEmptyDatabase(name);
    await applyMigrations(url);
    return url;
  };
  const appDb = await createDatabase("bench_app");
  process.env.DATABASE_URL = appDb;
  const { createKey } = await import("../lib/server/keys/key-service");
  const { key } = await createKey("bench", ["ingest"]);
  // On a loaded machine the first answer of a cold build can take longer than the tests allow.
  const app = await startApp(appDb, {}, 120_000);
  const statements = options.statementStats ? await statementStats(appDb) : null;
  return {
    baseUrl: app.baseUrl,
    key,
    /** pg_stat_statements of the app's database (with `statementStats`). */
    statements,
    appPid: app.process.pid as number,
    /** The throwaway cluster's directory (removed by stop()). */
    dataDir,
    createDatabase,
    /** Without migrations: for another build's own (bench:ingest --baseline). */
    createEmptyDatabase,
    async stop() {
      try {
        await statements?.close();
        await app.stop();
        await admin.end();
        // This process's own pool (createKey above): ended first, or the cluster's stop is logged as a lost connection.
        const { getPool } = await import("../lib/server/db/client");
        await getPool().end();
        await server.stop();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
