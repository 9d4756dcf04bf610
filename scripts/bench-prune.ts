/**
 * Ingestion while retention prunes (issue 21): `npm run build && npm run bench:prune`.
 *
 * A throwaway database gets a prunable backlog by SQL (BENCH_BACKLOG chains 60–70 days old, a record and a history
 * row each, half in the DEFAULT partition and half in old weekly partitions). Then, alternately, BENCH_RECORDS
 * records are posted through POST /api/v1/records (batches of 100, three collectors) to an app with retention off
 * and to one with retention on, which prunes the backlog meanwhile: records/s of each, and the chains pruned during
 * each pruning round (a round that pruned nothing measured nothing); then BENCH_IDLE_SECONDS of pruning alone.
 */
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../lib/server/db/embedded";
import { applyMigrations } from "../lib/server/db/migrate";
import { partitionOfWeek, weekStart } from "../lib/server/db/retention-partitions";
import { startApp } from "../tests/support/app-server";
import { shiftTimes } from "../tests/support/dashboard-records";
import { T0_MS } from "../tests/support/record-builders";
import { collectors, inParallel, makeRecords, median, postRecords } from "./ingest-bench-support";

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 300_000);
const TOTAL = Number(process.env.BENCH_RECORDS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Seconds of pruning with no ingestion after the rounds (0: none). */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const DAY = 24 * 60 * 60_000;
// About the size of a real record's body, so deleting a row costs what it would.
const BODY = JSON.stringify({ padding: "x".repeat(1500) });

const dataDir = mkdtempSync(path.join(tmpdir(), "retention-prune-bench-"));
const server = await startEmbeddedPostgres(path.join(dataDir, "pg"), {
  // PostgreSQL's own word when it stops or ends a connection, so a run cut short says why.
  log: (line) => {
    if (/shutdown|terminat|FATAL|PANIC/i.test(line)) console.error(`postgres: ${line.trim()}`);
  },
});
try {
  const admin = new pg.Client({ connectionString: server.serverUrl("postgres") });
  await admin.connect();
  await admin.query('create database "bench_prune"');
  await admin.end();
  const url = server.serverUrl("bench_prune");
  await applyMigrations(url);
  process.env.DATABASE_URL = url;
  const { createKey } = await import("../lib/server/keys/key-service");
  const { key } = await createKey("bench", ["ingest"]);
  const client = new pg.Client({ connectionString: url });
  // The server stopping after a failed round ends this connection: the round's own error is the one to report.
  client.on("error", () => {});
  await client.connect();
  await seedBacklog(client);
  const backlog = async () =>
    Number((await client.query("select count(*) as n from chains where chain_id like 'old-%'")).rows[0]?.n);

  const results: { pruning: boolean; rate: number; pruned: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Every run adds records, and the load of a shared machine drifts: the order turns each round (ABBA), so
    // neither app always runs on the larger database.
    for (const pruning of round % 2 === 0 ? [false, true] : [true, false]) {
      const app = await startApp(
        url,
        pruning ? { RECEIPT_RETENTION: "1", RECEIPT_RETENTION_TICK_MS: "100" } : { RECEIPT_RETENTION: "0" },
        // The machine is shared: a slow start is not what this measures.
        120_000,
      );
      try {
        const before = await backlog();
        const rate = await ingest(app.baseUrl, key, `r${round}-${pruning ? "p" : "n"}`);
        const pruned = before - (await backlog());
        results.push({ pruning, rate, pruned });
        console.log(
          `round ${round + 1} ${pruning ? "pruning " : "no prune"}: ${rate.toFixed(0)} records/s` +
            (pruning
              ? `, ${pruned} chains pruned meanwhile (${(pruned / (TOTAL / rate)).toFixed(0)} a second)`
              : ""),
        );
      } finally {
        await app.stop();
      }
    }
  }
  if (IDLE_SECONDS > 0) {
    // Pruning alone, no ingestion: the rate a backlog goes at on a machine otherwise quiet.
    const app = await startApp(url, { RECEIPT_RETENTION: "1", RECEIPT_RETENTION_TICK_MS: "100" }, 120_000);
    try {
      const before = await backlog();
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      const pruned = before - (await backlog());
      console.log(
        `pruning alone: ${pruned} chains in ${IDLE_SECONDS} s (${(pruned / IDLE_SECONDS).toFixed(0)} a second)`,
      );
    } finally {
      await app.stop();
    }
  }
  if (ROUNDS > 0) report(results, await backlog());
  await client.end();
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

function report(results: { pruning: boolean; rate: number }[], left: number) {
  const without = median(results.filter((r) => !r.pruning).map((r) => r.rate));
  const withPruning = median(results.filter((r) => r.pruning).map((r) => r.rate));
  const total = (pruning: boolean) =>
    results.filter((r) => r.pruning === pruning).reduce((sum, r) => sum + TOTAL / r.rate, 0);
  console.log(
    `median: ${without.toFixed(0)} records/s without pruning, ${withPruning.toFixed(0)} while pruning ` +
      `(ratio ${(withPruning / without).toFixed(2)}; all rounds' records over all their seconds: ` +
      `${(total(false) / total(true)).toFixed(2)}), backlog left ${left} of ${BACKLOG}, ` +
      `RECEIPT_RETENTION_PAUSE_MS ${process.env.RECEIPT_RETENTION_PAUSE_MS ?? "default"}`,
  );
}

async function ingest(baseUrl: string, key: string, prefix: string): Promise<number> {
  // Observed now, as live traffic is: the fixture's fixed dates would become prunable themselves one day.
  const live = makeRecords(prefix, TOTAL).map((record) => shiftTimes(record, Date.now() - T0_MS));
  const bodies = collectors(live, 100).map((stream) =>
    stream.map((batch) => JSON.stringify({ records: batch })),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 3 });
  try {
    const started = performance.now();
    await inParallel(bodies, (body) => postRecords(agent, baseUrl, key, body));
    return TOTAL / ((performance.now() - started) / 1000);
  } finally {
    agent.destroy();
  }
}

/** Half the backlog in two old weekly partitions (dropped whole), half in the DEFAULT one (deleted by chain). */
async function seedBacklog(client: pg.Client) {
  const now = Date.now();
  for (const daysAgo of [63, 70]) {
    const week = partitionOfWeek(weekStart(new Date(now - daysAgo * DAY)));
    await client.query(
      `create table if not exists ${week.name} partition of health_records
        for values from ('${week.from.toISOString()}') to ('${week.to.toISOString()}')`,
    );
  }
  const defaultAt = new Date(weekStart(new Date(now - 70 * DAY)).getTime() - 3 * DAY);
  const inWeeks = new Date(now - 66 * DAY);
  const step = 50_000;
  for (let from = 0; from < BACKLOG; from += step) {
    const at = from < BACKLOG / 2 ? defaultAt : inWeeks;
    await client.query(
      `with seeded as (
          insert into health_records (record_id, chain_id, session_id, observed_at, body, state, layer, reasons)
          select 'old-rec-' || i, 'old-' || i, 's-' || (i / 4), $3::timestamptz + i * interval '1 ms', $4::json,
              'healthy', 'outcome', '{}'
            from generate_series($1::int, $2::int) i
          returning seq, record_id, chain_id, session_id, observed_at)
        , chained as (
          insert into chains (chain_id, session_id, state, layer, reasons, current_record_id, current_seq,
              observed_at, evaluated_at, client_name, client_version, transport)
          select chain_id, session_id, 'healthy', 'outcome', '{}', record_id, seq, observed_at, observed_at, 'c', '1',
              'stdio'
            from seeded returning chain_id, observed_at)
        insert into chain_state_changes (chain_id, to_state, reason, at, cause)
          select chain_id, 'healthy', 'seeded', observed_at, 'record' from chained`,
      [from, Math.min(from + step, BACKLOG) - 1, at.toISOString(), BODY],
    );
  }
  await client.query("vacuum analyze");
  console.log(`seeded ${BACKLOG} prunable chains`);
}
