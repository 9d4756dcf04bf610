// npm run db:seed-bulk -- --chains 1000000 [--days 30] [--seed 42]
// The bulk seed path for the 10 M chain benchmark (docs/BENCHMARKS.md): the demo mix (scripts/seed-bulk-rows.ts) loaded
// with COPY into chains, health_records and chain_state_changes with secondary indexes and foreign keys dropped and
// built again after; then what the writes would have built (rollups), a small tail through the real ingestion path
// (alert events, routed once the app runs), a little triage through the triage services, the rollups recounted from
// chains (rebuildChainRollups), and `vacuum analyze`.
// Into DATABASE_URL or the embedded PostgreSQL under .data/, like `npm run db:seed`. Into empty tables each table is
// loaded in one transaction after a TRUNCATE, with COPY FREEZE: on a `wal_level = minimal` cluster (bench:dashboard
// restarts its throwaway cluster so) that writes no WAL.
import { statfsSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { CHAIN_COLUMNS, CHANGE_COLUMNS, RECORD_COLUMNS, seedChunk } from "./seed-bulk-rows";
import {
  dropIndexesAndForeignKeys,
  isPartitioned,
  LOADED_TABLES,
  quoteIdent,
  relaxDurability,
  restoreIndexesAndForeignKeys,
} from "./seed-bulk-schema";
import { createRandom } from "./seed/demo-world";

const CHUNK_CHAINS = 20_000;
/** On-disk bytes (heap, TOAST, indexes) per byte of COPY text, measured on a loaded set (docs/BENCHMARKS.md). */
const DISK_PER_TEXT_BYTE = 1.5;
const DISK_RESERVE_BYTES = 8 * 1024 ** 3;

export type BulkSeedOptions = {
  chains: number;
  days: number;
  seed: number;
  /** Where free disk is checked against the estimate before loading. */
  dataDir?: string;
  log?: (line: string) => void;
};

/** Loads `chains` more chains into the database at `url`, then builds what the writes would have built. */
export async function seedBulk(url: string, options: BulkSeedOptions) {
  const log = options.log ?? ((line: string) => console.error(line));
  const nowMs = Date.now();
  const runTag = `bulk${nowMs.toString(36)}`;
  checkDisk(options, nowMs, log);
  const clients = await Promise.all(LOADED_TABLES.map(() => connect(url)));
  const [records, chains, changes] = clients as [pg.Client, pg.Client, pg.Client];
  let loaded = { chains: 0, records: 0, sessions: 0 };
  try {
    const empty = (await records.query("select not exists (select 1 from chains) as empty")).rows[0].empty;
    const weeks = await makeWeeksOfSeed(records, nowMs, options.days);
    log(`made ${weeks.length} weekly partitions of health_records for the seed's ${options.days} days`);
    await relaxDurability(records, true);
    const pieces = await dropIndexesAndForeignKeys(records);
    log(
      `dropped ${pieces.indexes.length} indexes and ${pieces.foreignKeys.length} foreign keys for the load`,
    );
    const freeze: Record<string, string> = {};
    if (empty) {
      for (const [i, table] of LOADED_TABLES.entries()) {
        const client = clients[i] as pg.Client;
        await client.query("begin");
        await client.query(`truncate ${quoteIdent(table)}`);
        freeze[table] = (await isPartitioned(client, table)) ? "" : " with (freeze)";
      }
    }
    const random = createRandom(options.seed);
    let seq = BigInt((await records.query("select nextval('health_records_seq_seq') as n")).rows[0].n);
    const started = performance.now();
    let inFlight: Promise<unknown> = Promise.resolve();
    const chunks = Math.ceil(options.chains / CHUNK_CHAINS);
    for (let index = 0; loaded.chains < options.chains; index++) {
      const chunkTarget = Math.min(CHUNK_CHAINS, options.chains - loaded.chains);
      const slice: [number, number] = [
        Math.min(index, chunks - 1) / chunks,
        Math.min(index + 1, chunks) / chunks,
      ];
      const chunk = seedChunk(
        random,
        { runTag, firstSession: loaded.sessions, chainTarget: chunkTarget, nowMs, days: options.days, slice },
        () => seq++,
      );
      await inFlight;
      inFlight = Promise.all([
        copyIn(
          records,
          `copy health_records (${RECORD_COLUMNS}) from stdin${freeze.health_records ?? ""}`,
          chunk.records,
        ),
        copyIn(chains, `copy chains (${CHAIN_COLUMNS}) from stdin${freeze.chains ?? ""}`, chunk.chains),
        copyIn(
          changes,
          `copy chain_state_changes (${CHANGE_COLUMNS}) from stdin${freeze.chain_state_changes ?? ""}`,
          chunk.changes,
        ),
      ]);
      loaded = {
        chains: loaded.chains + chunk.chainCount,
        records: loaded.records + chunk.recordCount,
        sessions: loaded.sessions + chunk.sessions,
      };
      const rate = Math.round(loaded.chains / ((performance.now() - started) / 1000));
      process.stderr.write(`\r${loaded.chains} chains, ${loaded.records} records, ${rate} chains/s…`);
    }
    await inFlight;
    if (empty) for (const client of clients) await client.query("commit");
    await records.query("select setval('health_records_seq_seq', $1)", [String(seq)]);
    log(
      `\nloaded ${loaded.chains} chains (${loaded.records} records) in ${secondsSince(started)} s, run ${runTag}`,
    );
    const built = performance.now();
    await restoreIndexesAndForeignKeys(records, pieces);
    log(
      `built ${pieces.indexes.length} indexes and ${pieces.foreignKeys.length} foreign keys in ${secondsSince(built)} s`,
    );
  } finally {
    await relaxDurability(records, false).catch(() => {});
    await Promise.all(clients.map((client) => client.end()));
  }
  await finishSeed(url, runTag, nowMs, options, log);
  return { ...loaded, runTag };
}

/** A tail through the real ingestion path, some triage, what the writes would have built, then `vacuum analyze`. */
async function finishSeed(
  url: string,
  runTag: string,
  nowMs: number,
  options: BulkSeedOptions,
  log: (line: string) => void,
) {
  process.env.DATABASE_URL = url;
  // Statistics first: without them the planner scans the freshly loaded tables whole for the tail's lookups.
  const stats = new pg.Client({ connectionString: url });
  await stats.connect();
  await stats.query("analyze health_records, chains, chain_state_changes");
  await stats.end();
  const { prepareRecords } = await import("../lib/server/ingest/prepare-records");
  const { saveRecords } = await import("../lib/server/ingest/store-records");
  const { demoSession } = await import("./seed/demo-records");
  const random = createRandom(options.seed + 1);
  const tailChains = Math.min(2_000, Math.max(100, Math.round(options.chains / 1_000)));
  let tail = 0;
  for (let session = 0; tail < tailChains; session++) {
    const firstMs = nowMs - Math.floor(random.next() * 6 * 3_600_000) - 10 * 60_000;
    const batch = demoSession(random, `${runTag}-tail-${session}`, firstMs, Date.now());
    await saveRecords(await prepareRecords(batch));
    tail += new Set(batch.map((record) => record.chainId)).size;
  }
  const { seedTriage } = await import("./seed/demo-triage");
  log(`${tail} chains through the ingestion path; ${await seedTriage(runTag)}`);
  const { inTransaction } = await import("../lib/server/db/sql");
  const { rebuildChainRollups } = await import("../lib/server/db/chain-rollups");
  const rebuilt = performance.now();
  await inTransaction((sql) => rebuildChainRollups(sql));
  log(`rollups rebuilt from chains in ${secondsSince(rebuilt)} s`);
  const { getPool } = await import("../lib/server/db/client");
  const started = performance.now();
  await getPool().query("vacuum analyze");
  log(`vacuum analyze in ${secondsSince(started)} s`);
  const { getPrisma } = await import("../lib/server/db/client");
  await getPrisma().$disconnect();
  await getPool().end();
}

/**
 * The weekly partitions of health_records back to the seed's oldest record (the app makes only this week's and those
 * ahead), by the app's own code, before the load: its past records land in their weeks, which retention drops whole,
 * not in DEFAULT, which it empties row by row. Returns the partitions made.
 */
async function makeWeeksOfSeed(client: pg.Client, nowMs: number, days: number): Promise<string[]> {
  const { ensureRecordPartitions } = await import("../lib/server/db/retention-partitions");
  const { sqlOver, transactionOver } = await import("../lib/server/db/sql");
  const sql = sqlOver(client);
  const transaction = transactionOver(client);
  const since = new Date(nowMs - days * 24 * 60 * 60_000);
  return ensureRecordPartitions(transaction, new Date(nowMs), sql, since);
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // A seed that fails is run again on an empty set: no need to wait for each chunk's WAL flush.
  await client.query("set synchronous_commit = off");
  return client;
}

async function copyIn(client: pg.Client, statement: string, text: string): Promise<void> {
  if (text.length === 0) return;
  await pipeline(Readable.from([text]), client.query(copyFrom(statement)));
}

/** Bytes of COPY text a chain makes (records, chain, history) from a sample, times the measured on-disk factor. */
function checkDisk(options: BulkSeedOptions, nowMs: number, log: (line: string) => void) {
  let seq = 1n;
  const sample = seedChunk(
    createRandom(7),
    { runTag: "estimate", firstSession: 0, chainTarget: 5_000, nowMs, days: options.days, slice: [0, 1] },
    () => seq++,
  );
  const text = [sample.records, sample.chains, sample.changes].reduce(
    (sum, t) => sum + Buffer.byteLength(t),
    0,
  );
  const perChain = (text / sample.chainCount) * DISK_PER_TEXT_BYTE;
  const needed = perChain * options.chains;
  log(
    `estimate: ${Math.round(perChain)} bytes a chain on disk, ${gib(needed)} GiB for ${options.chains.toLocaleString("en-US")} chains`,
  );
  if (!options.dataDir) return;
  const fs = statfsSync(options.dataDir);
  const free = fs.bavail * fs.bsize;
  if (needed > free - DISK_RESERVE_BYTES) {
    throw new Error(
      `not enough disk: ${gib(free)} GiB free, ${gib(needed)} GiB needed + ${gib(DISK_RESERVE_BYTES)} kept free`,
    );
  }
}

const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(1);
const secondsSince = (started: number) => ((performance.now() - started) / 1000).toFixed(0);

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      chains: { type: "string", default: "1000000" },
      days: { type: "string", default: "30" },
      seed: { type: "string", default: "42" },
    },
  });
  const { embeddedDataDir } = await import("../lib/server/db/connection-string");
  const { openCliDatabase } = await import("./cli-database");
  const db = await openCliDatabase();
  try {
    await seedBulk(db.url, {
      chains: Number(values.chains),
      days: Number(values.days),
      seed: Number(values.seed),
      dataDir: db.startedHere ? embeddedDataDir() : undefined,
    });
  } finally {
    await db.stop();
  }
}
