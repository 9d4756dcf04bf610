/**
 * The retry guard's decision latency (issue 40): `npm run build && npm run bench:guard`.
 *
 * The production build on a throwaway database (as `bench:ingest`), seeded in SQL (generate_series, not HTTP) with
 * BENCH_OPERATIONS operations (default 1 M): a guarded lease and a chain carrying the key for each, their effects
 * mixed (committed, in doubt, proven absent). Then IN_FLIGHT callers ask `POST /api/v1/operations/{key}/attempts`
 * for a mix of seeded keys (already_committed, reconcile_first, proceed) and fresh ones (proceed, then wait). In the
 * same run and with the same callers, `GET /api/health` alone first: the cheapest route through Next.js's router, the
 * ceiling. Then the guard again with CAPACITY_IN_FLIGHT callers (its capacity). Prints p50/p99, the rate and the CPU a
 * request of each, and their ratios. Targets: guard p99 ≤ 3× health's p99, ≥ 1,000 decisions/s.
 */
import http from "node:http";
import pg from "pg";
import { statementTable } from "./bench/statement-stats";
import { cpuMsOf, postgresCpu, postgresCpuSince, startBenchApp } from "./ingest-bench-support";

const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 1_000_000);
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 20_000);
// Guard callers at once: many agents ask at the same time in production; 3 is the ingest benches' figure.
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 3);
// Then the guard's capacity: as many callers as it takes to keep both cores busy (with 3, part of each request is
// spent waiting on a round trip or a commit while a core idles).
const CAPACITY_IN_FLIGHT = Number(process.env.BENCH_CAPACITY_IN_FLIGHT ?? 8);

async function seed(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = performance.now();
  await client.query(
    `insert into operations (operation_key, tool, server, lease_holder, lease_granted_at, lease_until)
      select 'seed:' || i, 'create_report', 'reports', 'seeder', now() - interval '1 day',
        now() - interval '1 day' + interval '1 minute'
      from generate_series(1, $1::int) i`,
    [OPERATIONS],
  );
  // One chain per operation, first seen after its lease was granted (so it consumed it): a third committed, a
  // third in doubt, a third proven absent.
  await client.query(
    `insert into chains (chain_id, session_id, state, layer, reasons, retry_safe, current_record_id, current_seq,
        observed_at, evaluated_at, first_seen_at, client_name, client_version, transport, tool, server_name,
        operation_key)
      select 'seed-chain:' || i, 'seed-session:' || (i / 4), s.state, s.layer, array[s.reason], s.retry_safe,
        'seed-record:' || i, i, now() - interval '1 day', now() - interval '1 day',
        now() - interval '1 day' + interval '1 second', 'bench', '1.0.0', 'stdio', 'create_report', 'reports',
        'seed:' || i
      from generate_series(1, $1::int) i
      cross join lateral (select * from (values
        (0, 'unverified', 'outcome', 'outcome.no_receipt', false),
        (1, 'effect_unknown', 'effect', 'effect.unreconciled', false),
        (2, 'tool_failed', 'effect', 'effect.absent', true)) v(k, state, layer, reason, retry_safe)
        where v.k = i % 3) s`,
    [OPERATIONS],
  );
  // Vacuumed now, as a database that grew to this size over time would be: otherwise autovacuum's first pass over
  // the two million new rows runs during the measurement and its CPU is counted as the guard's.
  await client.query("vacuum analyze operations, chains");
  await client.end();
  return (performance.now() - started) / 1000;
}

function timed(agent: http.Agent, url: string, init: { method: string; key?: string; body?: string }) {
  return new Promise<{ ms: number; status: number }>((resolve, reject) => {
    const started = performance.now();
    const outgoing = http.request(
      url,
      {
        method: init.method,
        agent,
        headers: {
          ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
          ...(init.body
            ? { "content-type": "application/json", "content-length": Buffer.byteLength(init.body) }
            : {}),
        },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          resolve({ ms: performance.now() - started, status: response.statusCode ?? 0 }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(init.body);
  });
}

const cpuMicros = (usage: NodeJS.CpuUsage) => usage.user + usage.system;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** `count` requests by `inFlight` callers at once: their times, the rate, and app and PostgreSQL CPU a request. */
async function phase(
  inFlight: number,
  count: number,
  appPid: number,
  request: () => Promise<{ ms: number }>,
) {
  const ms: number[] = [];
  let left = count;
  const appBefore = cpuMsOf(appPid);
  const postgresBefore = postgresCpu();
  const callersBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left-- > 0) ms.push((await request()).ms);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    ms,
    perSecond: ms.length / seconds,
    appCpuUs: ((cpuMsOf(appPid) - appBefore) / ms.length) * 1000,
    postgresCpuUs: (postgresCpuSince(postgresBefore) / ms.length) * 1000,
    callersCpuUs: cpuMicros(process.cpuUsage(callersBefore)) / ms.length,
  };
}

async function main() {
  // Statement statistics on (pg_stat_statements): a few per cent of PostgreSQL's time, counted against the guard.
  const bench = await startBenchApp({ statementStats: true });
  try {
    const databaseUrl = process.env.DATABASE_URL as string;
    console.log(`seeding ${OPERATIONS.toLocaleString("en")} operations with their chains…`);
    console.log(`seeded in ${(await seed(databaseUrl)).toFixed(1)} s`);
    const agent = new http.Agent({
      keepAlive: true,
      maxSockets: Math.max(IN_FLIGHT, CAPACITY_IN_FLIGHT) + 1,
    });
    const guardUrl = (key: string) =>
      `${bench.baseUrl}/api/v1/operations/${encodeURIComponent(key)}/attempts`;
    const body = JSON.stringify({ tool: "create_report", holder: "bench", leaseMs: 60_000 });
    const statuses = new Map<number, number>();
    // Warm-up: the first answers of a cold build compile and connect.
    for (let i = 0; i < 200; i++)
      await timed(agent, guardUrl(`warm:${i}`), { method: "POST", key: bench.key, body });
    // The ceiling of this stack on this machine, in the same run: GET /api/health alone (one query, no auth, through
    // Next.js's router) with the same callers. The guard's rate and p99 are reported against it.
    const health = await phase(IN_FLIGHT, Math.min(DECISIONS, 5_000), bench.appPid, () =>
      timed(agent, `${bench.baseUrl}/api/health`, { method: "GET" }),
    );
    let asked = 0;
    const decide = async () => {
      const i = asked++;
      // Half seeded keys spread over the million, half fresh keys each asked twice (proceed, then wait).
      const key = i % 2 === 0 ? `seed:${1 + ((i * 7919) % OPERATIONS)}` : `fresh:${Math.floor(i / 4)}`;
      const result = await timed(agent, guardUrl(key), { method: "POST", key: bench.key, body });
      statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
      return result;
    };
    await bench.statements?.reset();
    const guard = await phase(IN_FLIGHT, DECISIONS, bench.appPid, decide);
    const statements = await bench.statements?.top(10);
    const capacity = await phase(CAPACITY_IN_FLIGHT, DECISIONS, bench.appPid, decide);
    console.log(`operations stored: ${OPERATIONS.toLocaleString("en")}; decisions: ${guard.ms.length}`);
    console.log(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`);
    for (const [name, result, inFlight] of [
      ["health", health, IN_FLIGHT],
      ["guard ", guard, IN_FLIGHT],
      ["guard ", capacity, CAPACITY_IN_FLIGHT],
    ] as const)
      console.log(
        `${name} p50 ${percentile(result.ms, 50).toFixed(1)} ms, p99 ${percentile(result.ms, 99).toFixed(1)} ms; ` +
          `${result.perSecond.toFixed(0)} requests/s (${inFlight} in flight); CPU a request: app ` +
          `${result.appCpuUs.toFixed(0)} µs, PostgreSQL ${result.postgresCpuUs.toFixed(0)} µs, the callers (this ` +
          `process) ${result.callersCpuUs.toFixed(0)} µs`,
      );
    if (statements) {
      console.log(`\nPostgreSQL's costliest statements, ${IN_FLIGHT} callers (pg_stat_statements):`);
      console.log(statementTable(statements, guard.ms.length, "decision"));
    }
    const p99Ratio = percentile(guard.ms, 99) / percentile(health.ms, 99);
    console.log(`guard p99 / health p99 = ${p99Ratio.toFixed(2)} (target ≤ 3)`);
    console.log(
      `decisions/s: ${guard.perSecond.toFixed(0)} with ${IN_FLIGHT} callers, ${capacity.perSecond.toFixed(0)} with ` +
        `${CAPACITY_IN_FLIGHT} (target ≥ 1,000); ${(guard.perSecond / health.perSecond).toFixed(2)}× health's rate`,
    );
  } finally {
    await bench.stop();
  }
}

await main();
