/**
 * The retry guard's decision latency (issue 40): `npm run build && npm run bench:guard`.
 *
 * The production build on a throwaway database (as `bench:ingest`), seeded in SQL (generate_series, not HTTP) with
 * BENCH_OPERATIONS operations (default 1 M): a guarded lease and a chain carrying the key for each, their effects
 * mixed (committed, in doubt, proven absent). Then IN_FLIGHT callers ask `POST /api/v1/operations/{key}/attempts`
 * for a mix of seeded keys (already_committed, reconcile_first, proceed) and fresh ones (proceed, then wait), and
 * in the same run another caller times `GET /api/health` alongside. Prints p50/p99 of both, their ratio and the
 * decisions a second. Targets: guard p99 ≤ 3× health's p99, ≥ 1,000 decisions/s.
 */
import http from "node:http";
import pg from "pg";
import { cpuMsOf, postgresCpu, postgresCpuSince, startBenchApp } from "./ingest-bench-support";

const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 1_000_000);
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 20_000);
// Guard callers at once: many agents ask at the same time in production; 3 is the ingest benches' figure.
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 3);

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
  await client.query("analyze operations; analyze chains");
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

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

async function main() {
  const bench = await startBenchApp();
  try {
    const databaseUrl = process.env.DATABASE_URL as string;
    console.log(`seeding ${OPERATIONS.toLocaleString("en")} operations with their chains…`);
    console.log(`seeded in ${(await seed(databaseUrl)).toFixed(1)} s`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT + 1 });
    const guardUrl = (key: string) =>
      `${bench.baseUrl}/api/v1/operations/${encodeURIComponent(key)}/attempts`;
    const body = JSON.stringify({ tool: "create_report", holder: "bench", leaseMs: 60_000 });
    const statuses = new Map<number, number>();
    const guardMs: number[] = [];
    const healthMs: number[] = [];
    // Warm-up: the first answers of a cold build compile and connect.
    for (let i = 0; i < 200; i++)
      await timed(agent, guardUrl(`warm:${i}`), { method: "POST", key: bench.key, body });
    // The ceiling of this stack on this machine, in the same run: GET /api/health alone (one query, no auth) with the
    // same callers. The guard's rate is reported as a share of it.
    const ceilingStarted = performance.now();
    let ceilingLeft = Math.min(DECISIONS, 3_000);
    const ceilingCount = ceilingLeft;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (ceilingLeft-- > 0) await timed(agent, `${bench.baseUrl}/api/health`, { method: "GET" });
      }),
    );
    const ceilingPerSecond = ceilingCount / ((performance.now() - ceilingStarted) / 1000);
    let next = 0;
    let done = false;
    const caller = async () => {
      while (next < DECISIONS) {
        const i = next++;
        // Half seeded keys spread over the million, half fresh keys each asked twice (proceed, then wait).
        const key = i % 2 === 0 ? `seed:${1 + ((i * 7919) % OPERATIONS)}` : `fresh:${Math.floor(i / 4)}`;
        const result = await timed(agent, guardUrl(key), { method: "POST", key: bench.key, body });
        guardMs.push(result.ms);
        statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
      }
    };
    const health = async () => {
      while (!done) healthMs.push((await timed(agent, `${bench.baseUrl}/api/health`, { method: "GET" })).ms);
    };
    const started = performance.now();
    const appCpuBefore = cpuMsOf(bench.appPid);
    const postgresBefore = postgresCpu();
    const healthLoop = health();
    await Promise.all(Array.from({ length: IN_FLIGHT }, caller));
    const seconds = (performance.now() - started) / 1000;
    done = true;
    await healthLoop;
    // CPU a request (decisions and health checks together): what bounds the rate once the cores are busy.
    const requests = guardMs.length + healthMs.length;
    const appCpu = (cpuMsOf(bench.appPid) - appCpuBefore) / requests;
    const postgresCpuMs = postgresCpuSince(postgresBefore) / requests;
    const guardP99 = percentile(guardMs, 99);
    const healthP99 = percentile(healthMs, 99);
    console.log(`operations stored: ${OPERATIONS.toLocaleString("en")}; decisions: ${guardMs.length}`);
    console.log(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`);
    const perSecond = guardMs.length / seconds;
    console.log(
      `guard  p50 ${percentile(guardMs, 50).toFixed(1)} ms, p99 ${guardP99.toFixed(1)} ms; ` +
        `${perSecond.toFixed(0)} decisions/s (${IN_FLIGHT} in flight)`,
    );
    console.log(
      `health alone: ${ceilingPerSecond.toFixed(0)} requests/s; the guard's rate is ${((100 * perSecond) / ceilingPerSecond).toFixed(0)} % of it`,
    );
    console.log(
      `health p50 ${percentile(healthMs, 50).toFixed(1)} ms, p99 ${healthP99.toFixed(1)} ms (${healthMs.length} requests)`,
    );
    console.log(`guard p99 / health p99 = ${(guardP99 / healthP99).toFixed(2)} (target ≤ 3)`);
    console.log(
      `CPU a request: app ${(appCpu * 1000).toFixed(0)} µs, PostgreSQL ${(postgresCpuMs * 1000).toFixed(0)} µs`,
    );
  } finally {
    await bench.stop();
  }
}

await main();
