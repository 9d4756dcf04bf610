/**
 * Ingestion throughput (issue 4): `npm run bench:ingest`.
 *
 * Starts the production build (`next start`, run `npm run build` first) on a throwaway database and posts the
 * seed fixture's shapes (fresh recordIds, three consecutive shapes per chain, the newest of which is always an
 * alerting state) through POST /api/v1/records in batches of 100 and of 1000, three collectors in parallel. In the
 * same run, the same rows (records, chains, state history) are written by raw `pg` multi-row INSERTs, one
 * transaction per batch: the ceiling that HTTP + validation + classification + the app's writes are compared with.
 */
import http from "node:http";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import pg from "pg";
import { startEmbeddedPostgres, freePort } from "../lib/server/db/embedded";
import { applyMigrations } from "../lib/server/db/migrate";
import { spawnNext } from "../lib/server/next-server";
import { prepareRecords } from "../lib/server/ingest/prepare-records";
import type { HealthRecord } from "../lib/contract";

const root = path.resolve(import.meta.dirname, "..");
const TOTAL = Number(process.env.BENCH_RECORDS ?? 30_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IN_FLIGHT = 3;

const seeds = (
  JSON.parse(readFileSync(path.join(root, "tests/fixtures/seed-cases.json"), "utf8")) as {
    cases: { record: HealthRecord }[];
  }
).cases.map((c) => c.record);

function makeRecords(prefix: string, count: number): HealthRecord[] {
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

function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * IN_FLIGHT collectors, each sending the sessions of its own agents one batch after the other, as real collectors
 * do. (Cutting one stream of records into batches sent concurrently would put a chain's records into two batches
 * in flight at once, and the second would wait for the first's chain lock: a contention no deployment has.)
 */
function collectors<T extends { session: { id: string } }>(records: T[], size: number): T[][][] {
  const sessions = [...new Set(records.map((r) => r.session.id))];
  const collectorOf = new Map(sessions.map((id, i) => [id, i % IN_FLIGHT]));
  return Array.from({ length: IN_FLIGHT }, (_, c) =>
    batches(
      records.filter((r) => collectorOf.get(r.session.id) === c),
      size,
    ),
  );
}

async function inParallel<T>(streams: T[][], send: (batch: T) => Promise<void>) {
  await Promise.all(
    streams.map(async (stream) => {
      for (const batch of stream) await send(batch);
    }),
  );
}

/** CPU time (user + system, ms) a process has used, from /proc (clock ticks of 10 ms). */
function cpuMsOf(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0; // the process ended
  }
}

/** CPU time of each PostgreSQL process alive now, by pid. */
function postgresCpu(): Map<string, number> {
  const byPid = new Map<string, number>();
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres") byPid.set(pid, cpuMsOf(pid));
    } catch {}
  }
  return byPid;
}

/** What PostgreSQL's processes spent since `before` (a backend that exited in between is not counted). */
function postgresCpuSince(before: Map<string, number>): number {
  let total = 0;
  for (const [pid, ms] of postgresCpu()) total += ms - (before.get(pid) ?? 0);
  return total;
}

type Run = { rate: number; appUs: number; postgresUs: number };

/** Records/s of `work`, and the CPU µs per record the app (when given) and PostgreSQL spent on it. */
async function measure(appPid: number | undefined, work: () => Promise<void>): Promise<Run> {
  const app0 = appPid ? cpuMsOf(appPid) : 0;
  const pg0 = postgresCpu();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  // The app's background jobs route the alerts this run raised: their cost belongs to it.
  if (appPid) await new Promise((resolve) => setTimeout(resolve, 1500));
  const perRecord = (ms: number) => (ms * 1000) / TOTAL;
  return {
    rate: TOTAL / seconds,
    appUs: appPid ? perRecord(cpuMsOf(appPid) - app0) : 0,
    postgresUs: perRecord(postgresCpuSince(pg0)),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function createDatabase(admin: pg.Client, serverUrl: (db: string) => string, name: string) {
  await admin.query(`create database "${name}"`);
  const url = serverUrl(name);
  await applyMigrations(url);
  return url;
}

async function viaHttp(
  baseUrl: string,
  key: string,
  size: number,
  prefix: string,
  appPid?: number,
): Promise<Run> {
  const bodies = collectors(makeRecords(prefix, TOTAL), size).map((stream) =>
    stream.map((b) => JSON.stringify({ records: b })),
  );
  // A fresh agent per run: between runs the app closes idle keep-alive sockets, and reusing one races that close.
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  try {
    return await measure(appPid, () => inParallel(bodies, (body) => postRecords(agent, baseUrl, key, body)));
  } finally {
    agent.destroy();
  }
}

// node:http with keep-alive rather than fetch: the load generator shares the machine's two cores with the app and
// PostgreSQL, and fetch spent ~2.5 ms of CPU a request (undici on Node 20) that no deployment's server pays for.
function postRecords(agent: http.Agent, baseUrl: string, key: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${baseUrl}/api/v1/records`,
      {
        method: "POST",
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          // As fetch sends it: the app compresses its answer, as it would for a real collector.
          "accept-encoding": "gzip, deflate",
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode === 200) return resolve();
          const raw = Buffer.concat(chunks);
          const text = response.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
          reject(new Error(`HTTP ${response.statusCode}: ${text.toString()}`));
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** The same rows our path writes, as plain multi-row INSERTs: no HTTP, no validation, no ORM. */
async function viaRawInsert(url: string, size: number, prefix: string): Promise<Run> {
  const prepared = await Promise.all(
    collectors(makeRecords(prefix, TOTAL), size).map((stream) =>
      Promise.all(stream.map((batch) => prepareRecords(batch))),
    ),
  );
  const pool = new pg.Pool({ connectionString: url, max: IN_FLIGHT });
  const run = await measure(undefined, () =>
    inParallel(prepared, async (batch) => {
      const client = await pool.connect();
      try {
        await client.query("begin");
        const recordValues: unknown[] = [];
        const recordRows = batch.map(({ record, classification }, i) => {
          recordValues.push(
            record.recordId,
            record.chainId,
            record.session.id,
            record.observedAt,
            JSON.stringify(record),
            classification.state,
            classification.layer,
            classification.reasons,
          );
          const o = i * 8;
          return `($${o + 1},$${o + 2},$${o + 3},$${o + 4},$${o + 5},$${o + 6},$${o + 7},$${o + 8})`;
        });
        await client.query(
          `insert into health_records (record_id, chain_id, session_id, observed_at, body, state, layer, reasons) values ${recordRows.join(",")}`,
          recordValues,
        );
        const latest = new Map(batch.map((p) => [p.record.chainId, p]));
        const chainValues: unknown[] = [];
        const chainRows = [...latest.values()].map(({ record, classification }, i) => {
          chainValues.push(
            record.chainId,
            record.session.id,
            classification.state,
            classification.layer,
            classification.reasons,
            record.recordId,
            0,
            record.observedAt,
            record.observedAt,
            record.session.client.name,
            record.session.client.version,
            record.session.transport,
            JSON.stringify(record.labels ?? {}),
          );
          const o = i * 13;
          return `(${Array.from({ length: 13 }, (_, k) => `$${o + k + 1}`).join(",")})`;
        });
        await client.query(
          `insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq, observed_at, evaluated_at, client_name, client_version, transport, labels) values ${chainRows.join(",")}
         on conflict (chain_id) do update set state = excluded.state`,
          chainValues,
        );
        const historyValues: unknown[] = [];
        const historyRows = batch.map(({ record, classification }, i) => {
          historyValues.push(
            record.chainId,
            classification.state,
            classification.reasons[0],
            record.observedAt,
            record.recordId,
          );
          const o = i * 5;
          return `($${o + 1},null,$${o + 2},$${o + 3},$${o + 4},$${o + 5},'record')`;
        });
        await client.query(
          `insert into chain_state_changes (chain_id, from_state, to_state, reason, at, record_id, cause) values ${historyRows.join(",")}`,
          historyValues,
        );
        await client.query("commit");
      } finally {
        client.release();
      }
    }),
  );
  await pool.end();
  return run;
}

const dataDir = mkdtempSync(path.join(tmpdir(), "receipt-bench-"));
const server = await startEmbeddedPostgres(path.join(dataDir, "pg"));
const admin = new pg.Client({ connectionString: server.serverUrl("postgres") });
await admin.connect();
const appDb = await createDatabase(admin, server.serverUrl, "bench_app");
process.env.DATABASE_URL = appDb;
const { createKey } = await import("../lib/server/key-service");
const { key } = await createKey("bench", ["ingest"]);
const port = await freePort();
const app = spawnNext(["start", "--port", String(port)], {
  env: { ...process.env, DATABASE_URL: appDb, NEXT_TELEMETRY_DISABLED: "1" },
  stdio: "ignore",
});
const baseUrl = `http://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) {
  try {
    if ((await fetch(`${baseUrl}/api/health`)).ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 200));
}

try {
  // Warm-up (JIT, connection pools, Next.js route compilation) with records of its own: the measured runs must
  // store new records, not answer duplicates.
  await viaHttp(baseUrl, key, 100, "warm");
  const rows: string[] = [];
  for (const size of [100, 1000]) {
    const http: Run[] = [];
    const raw: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      http.push(await viaHttp(baseUrl, key, size, `http${size}-${round}`, app.pid));
      const rawDb = await createDatabase(admin, server.serverUrl, `bench_raw_${size}_${round}`);
      raw.push(await viaRawInsert(rawDb, size, `raw${size}-${round}`));
    }
    const httpRate = median(http.map((r) => r.rate));
    const rawRate = median(raw.map((r) => r.rate));
    const n = (value: number) => Math.round(value).toLocaleString("en");
    rows.push(
      `| ${size} | ${n(httpRate)} (${http.map((r) => n(r.rate)).join(", ")}) | ${n(rawRate)} | ${Math.round((httpRate / rawRate) * 100)}% | ${n(median(http.map((r) => r.appUs)))} | ${n(median(http.map((r) => r.postgresUs)))} | ${n(median(raw.map((r) => r.postgresUs)))} |`,
    );
  }
  console.log(
    `Ingestion, ${TOTAL.toLocaleString("en")} records per run, ${IN_FLIGHT} collectors in parallel, median of ${ROUNDS} runs`,
  );
  console.log(
    "| batch | HTTP → PostgreSQL (records/s; each run) | raw pg INSERT (records/s) | ratio | app CPU µs/record | PostgreSQL CPU µs/record (HTTP) | PostgreSQL CPU µs/record (raw) |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const row of rows) console.log(row);
} finally {
  app.kill("SIGTERM");
  await admin.end();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
