/**
 * Ingestion throughput (issue 4): `npm run bench:ingest`.
 *
 * Starts the production build (`next start`, run `npm run build` first) on a throwaway database and posts the
 * seed fixture's shapes (fresh recordIds, three consecutive shapes per chain, the newest of which is always an
 * alerting state) through POST /api/v1/records in batches of 100 and of 1000, three collectors in parallel. In the
 * same run, the same rows (records, chains, state history) are written by raw `pg` multi-row INSERTs, one
 * transaction per batch: the ceiling that HTTP + validation + classification + the app's writes are compared with.
 * And the same batches are posted to the bare ingester (scripts/bench/bare-ingester.ts: bare node:http, Receipt's own
 * validation and classification, the ceiling's rows), the least a Node ingester that checks its records costs here.
 *
 * `npm run bench:ingest -- --baseline <git-ref>`: instead of the ceiling, that ref's own production build
 * (scripts/bench/baseline-build.ts) on its own database in the same cluster, runs alternating between the two builds;
 * prints each build's records/s and the ratio current ÷ baseline, the median of the rounds' ratios (issue 21: at most a
 * 10 % drop). `--baseline-env NAME=VALUE` (repeatable) sets a variable for the baseline's app only: with `--baseline
 * HEAD`, the same code with one setting changed.
 *
 * `--statements`: pg_stat_statements on in the cluster (a few per cent of PostgreSQL's time, counted against the app),
 * and after the table the costliest statements a record of the last batch-100 run, its background jobs included.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { prepareRecords } from "../lib/server/ingest/prepare-records";
import { writeCeilingRows } from "./bench/ceiling-writes";
import { statementTable } from "./bench/statement-stats";
import {
  IN_FLIGHT,
  collectors,
  cpuMsOf,
  inParallel,
  makeRecords,
  median,
  postRecords,
  postgresCpu,
  postgresCpuSince,
  startBenchApp,
} from "./ingest-bench-support";

const { values: args } = parseArgs({
  options: {
    baseline: { type: "string" },
    "baseline-env": { type: "string", multiple: true },
    statements: { type: "boolean" },
  },
});
const baselineRef = args.baseline;
// `--baseline HEAD --baseline-env RECEIPT_ROUTE_AT_COMMIT=0`: one build, a setting changed on the baseline's side.
const baselineEnv = Object.fromEntries(
  (args["baseline-env"] ?? []).map((pair) => {
    const at = pair.indexOf("=");
    if (at < 1) throw new Error(`--baseline-env ${pair}: expected NAME=VALUE`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
// Against a baseline, shorter runs and more rounds: a round's ratio pairs two runs seconds apart, so load that drifts
// over minutes on a shared machine cancels out of it.
const TOTAL = Number(process.env.BENCH_RECORDS ?? (baselineRef ? 10_000 : 30_000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (baselineRef ? 9 : 3));

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
        await writeCeilingRows(client, batch);
      } finally {
        client.release();
      }
    }),
  );
  await pool.end();
  return run;
}

/** The bare ingester (scripts/bench/bare-ingester.ts) in its own process, on its own database; stop() ends it. */
async function startBareIngester(url: string) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "bench/bare-ingester.ts"), url, String(IN_FLIGHT)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += String(chunk);
      const line = output.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`the bare ingester exited with ${code}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: () => new Promise((resolve) => child.once("exit", resolve).kill("SIGTERM")),
  };
}

// The baseline is built before anything is started, so the build does not share the machine with a measured run.
const baseline = baselineRef
  ? (await import("./bench/baseline-build")).baselineBuild(baselineRef)
  : undefined;
const bench = await startBenchApp({ statementStats: args.statements === true });
const { baseUrl, key, appPid } = bench;

try {
  if (baseline) {
    const { compareWithBaseline } = await import("./bench/ingest-baseline");
    await compareWithBaseline(bench, baseline, { total: TOTAL, rounds: ROUNDS, viaHttp, baselineEnv });
  } else {
    await againstCeiling();
  }
} finally {
  await bench.stop();
}
// The embedded cluster's exit hook (async-exit-hook) ends the process with 0 on `beforeExit`, whatever exitCode says.
process.exit(process.exitCode ?? 0);

/**
 * The current build against raw `pg` INSERTs of the same rows and against the bare ingester, batch 100 and 1000. The
 * three alternate within a round, so drift over minutes falls on all of them alike.
 */
async function againstCeiling() {
  const bare = await startBareIngester(await bench.createDatabase("bench_bare"));
  try {
    // Warm-up (JIT, connection pools, Next.js route compilation) with records of its own: the measured runs must
    // store new records, not answer duplicates.
    await viaHttp(baseUrl, key, 100, "warm");
    await viaHttp(bare.baseUrl, key, 100, "warm");
    const rows: string[] = [];
    let statements = "";
    for (const size of [100, 1000]) {
      const runs: Record<"app" | "bare" | "raw", Run[]> = { app: [], bare: [], raw: [] };
      for (let round = 0; round < ROUNDS; round++) {
        await bench.statements?.reset();
        runs.app.push(await viaHttp(baseUrl, key, size, `http${size}-${round}`, appPid));
        if (bench.statements && size === 100)
          statements = statementTable(await bench.statements.top(15), TOTAL, "record");
        runs.bare.push(await viaHttp(bare.baseUrl, key, size, `bare${size}-${round}`, bare.pid));
        const rawDb = await bench.createDatabase(`bench_raw_${size}_${round}`);
        runs.raw.push(await viaRawInsert(rawDb, size, `raw${size}-${round}`));
      }
      rows.push(ceilingRow(size, runs));
    }
    console.log(
      `Ingestion, ${TOTAL.toLocaleString("en")} records per run, ${IN_FLIGHT} collectors in parallel, median of ${ROUNDS} runs`,
    );
    console.log(
      "| batch | Receipt (records/s; each run) | bare ingester | raw pg INSERT (ceiling) | Receipt ÷ ceiling | bare ÷ ceiling | Receipt ÷ bare | app CPU µs/record (Receipt; bare) | PostgreSQL CPU µs/record (Receipt; bare; raw) |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|");
    for (const row of rows) console.log(row);
    if (statements) {
      console.log(
        "\nThe app's PostgreSQL statements (pg_stat_statements), the last batch-100 run, its jobs included:",
      );
      console.log(statements);
    }
  } finally {
    await bare.stop();
  }
}

function ceilingRow(size: number, runs: Record<"app" | "bare" | "raw", Run[]>): string {
  const rate = (of: Run[]) => median(of.map((r) => r.rate));
  const n = (value: number) => Math.round(value).toLocaleString("en");
  const percent = (a: number, b: number) => `${Math.round((a / b) * 100)}%`;
  const [app, bare, raw] = [rate(runs.app), rate(runs.bare), rate(runs.raw)];
  const cpu = (of: Run[], pick: (r: Run) => number) => n(median(of.map(pick)));
  return `| ${size} | ${n(app)} (${runs.app.map((r) => n(r.rate)).join(", ")}) | ${n(bare)} | ${n(raw)} | ${percent(app, raw)} | ${percent(bare, raw)} | ${percent(app, bare)} | ${cpu(runs.app, (r) => r.appUs)}; ${cpu(runs.bare, (r) => r.appUs)} | ${cpu(runs.app, (r) => r.postgresUs)}; ${cpu(runs.bare, (r) => r.postgresUs)}; ${cpu(runs.raw, (r) => r.postgresUs)} |`;
}
