/**
 * What one PostgreSQL holds (issue 21, docs/SCALING.md): `npm run build && npm run bench:capacity`.
 *
 * The production build on a throwaway embedded PostgreSQL, as bench:ingest starts it; three collectors post the seed
 * fixture's shapes (3 records a chain, 4 chains a session, background jobs on) in batches of BENCH_BATCH (1000).
 * Prints the records/s sustained over BENCH_RECORDS (60,000) records after a warm-up, then the bytes on disk each
 * table grew by (heap, TOAST and indexes: `pg_total_relation_size`, partitions counted under their root) and the WAL
 * written, per record and per chain, and what that makes a day at several rates.
 */
import http from "node:http";
import pg from "pg";
import {
  collectors,
  IN_FLIGHT,
  inParallel,
  makeRecords,
  postRecords,
  startBenchApp,
} from "./ingest-bench-support";

const TOTAL = Number(process.env.BENCH_RECORDS ?? 60_000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 6_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);
const RECORDS_PER_CHAIN = 3; // makeRecords' shape
const DISK_GB = 1000;

type TableSize = { table: string; bytes: number };

async function tableSizes(db: pg.Client): Promise<Map<string, number>> {
  const { rows } = await db.query<TableSize>(
    `select coalesce(pg_partition_root(c.oid), c.oid)::regclass::text as table,
       sum(pg_total_relation_size(c.oid))::float8 as bytes
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'm') group by 1`,
  );
  return new Map(rows.map((r) => [r.table, r.bytes]));
}

async function walBytes(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn");
  const [hi, lo] = (rows[0]?.lsn ?? "0/0").split("/").map((part) => Number.parseInt(part, 16));
  return (hi ?? 0) * 2 ** 32 + (lo ?? 0);
}

/** Waits until the background jobs have routed every alert event the ingestion wrote. */
async function drained(db: pg.Client) {
  for (;;) {
    const { rows } = await db.query<{ n: number }>("select count(*)::int as n from alert_outbox");
    if (rows[0]?.n === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function post(baseUrl: string, key: string, prefix: string, count: number): Promise<number> {
  const bodies = collectors(makeRecords(prefix, count), BATCH).map((stream) =>
    stream.map((b) => JSON.stringify({ records: b })),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const started = performance.now();
  try {
    await inParallel(bodies, (body) => postRecords(agent, baseUrl, key, body));
  } finally {
    agent.destroy();
  }
  return count / ((performance.now() - started) / 1000);
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

const bench = await startBenchApp();
const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
await db.connect();
try {
  const before = await tableSizes(db);
  const wal0 = await walBytes(db);
  await post(bench.baseUrl, bench.key, "warm", WARM_UP);
  const rate = await post(bench.baseUrl, bench.key, "run", TOTAL);
  await drained(db);
  await db.query("checkpoint");
  const after = await tableSizes(db);
  const wal = (await walBytes(db)) - wal0;

  const records = WARM_UP + TOTAL;
  const chains = records / RECORDS_PER_CHAIN;
  const grown = [...after]
    .map(([table, bytes]) => ({ table, bytes: bytes - (before.get(table) ?? 0) }))
    .filter((t) => t.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  const total = grown.reduce((sum, t) => sum + t.bytes, 0);
  const perRecord = total / records;

  console.log(`${fmt(records)} records (${fmt(chains)} chains), batch ${BATCH}, ${IN_FLIGHT} collectors`);
  console.log(`sustained: ${fmt(rate)} records/s over ${fmt(TOTAL)} records (after ${fmt(WARM_UP)})\n`);
  console.log("| table | MB | bytes/record | bytes/chain |\n|---|---:|---:|---:|");
  for (const t of [...grown, { table: "**total**", bytes: total }])
    console.log(
      `| ${t.table} | ${fmt(t.bytes / 2 ** 20, 1)} | ${fmt(t.bytes / records)} | ${fmt(t.bytes / chains)} |`,
    );
  console.log(`\nWAL written: ${fmt(wal / records)} bytes/record (what a streaming replica replays)\n`);
  console.log(
    `| records/s | GB a day on disk | WAL GB a day | days in ${DISK_GB} GB |\n|---:|---:|---:|---:|`,
  );
  for (const perSecond of [100, 1000, Math.round(rate), 5000]) {
    const day = (perSecond * 86_400 * perRecord) / 1e9;
    console.log(
      `| ${fmt(perSecond)} | ${fmt(day, 1)} | ${fmt((perSecond * 86_400 * wal) / records / 1e9, 1)} | ${fmt(DISK_GB / day, 1)} |`,
    );
  }
} finally {
  await db.end();
  await bench.stop();
}
