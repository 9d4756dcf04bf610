/**
 * OTLP ingestion against the native path (issue 18): `npm run build && npm run bench:otlp`.
 *
 * The production build on a throwaway database (as `bench:ingest`). Sessions of one `initialize` and four
 * `tools/call` client spans, made by the OpenTelemetry SDK and serialised to protobuf by
 * `@opentelemetry/otlp-transformer` as the OTLP exporters do, 25 sessions (100 chains) an export, go through
 * POST /v1/traces. The same chains — the records the server's own mapping builds from an identical set of spans,
 * under other ids — go through POST /api/v1/records in batches of 100. Runs alternate between the two paths on the
 * same server and database; records/s is chains stored a second, median of the rounds; the ratio is the OTLP cost.
 *
 * Then one session grown export by export (issue 39): twelve exports of 1,000 spans to one `mcp.session.id`, one
 * after another, each export's time and the 12th's over the 1st's (target: within 2×), while GET /api/health is
 * polled every 20 ms: its slowest answer, beside the slowest of the same poll on an idle server, is how long the
 * event loop was held. A warm-up export to another session goes first. `BENCH_SESSION_ONLY=1` runs this case alone.
 *
 * Then exports of the largest size taken (issue 39): JSON and protobuf bodies just under 5 MiB, one after another
 * (`BENCH_MAX_SIZE_EXPORTS` of each, default 5), each between two scrapes of /metrics: the app's own
 * `nodejs_eventloop_lag_max_seconds` says the longest the event loop was held while it took the export (target: no
 * stretch over ~50 ms); the same between two scrapes 2 s apart with nothing sent is the idle figure.
 * `BENCH_MAX_SIZE_ONLY=1` runs this case alone.
 */
import http from "node:http";
import { gunzipSync } from "node:zlib";
import {
  IN_FLIGHT,
  cpuMsOf,
  inParallel,
  median,
  postgresCpu,
  postgresCpuSince,
  startBenchApp,
} from "./ingest-bench-support";
import {
  CALLS_PER_SESSION,
  SESSIONS_PER_EXPORT,
  makeExports as makeExportsOf,
  makeMaxSizeExport,
  makeSessionGrowth,
  nativeTwin,
} from "./otlp-bench-data";

const CHAINS = Number(process.env.BENCH_CHAINS ?? 12_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SESSION_ONLY = process.env.BENCH_SESSION_ONLY === "1";
const MAX_SIZE_ONLY = process.env.BENCH_MAX_SIZE_ONLY === "1";
const MAX_SIZE_EXPORTS = Number(process.env.BENCH_MAX_SIZE_EXPORTS ?? 5);
const GROWTH_EXPORTS = 12;
const GROWTH_SPANS = 1000;

function post(
  agent: http.Agent,
  url: string,
  key: string,
  body: Buffer | string,
  type: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": type,
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const raw = Buffer.concat(chunks);
          const text = (response.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString();
          // An OTLP 200 with a body carries a partialSuccess: spans were refused, the run would not measure its claim.
          const refusedSome = type === "application/x-protobuf" && raw.length > 0;
          if (response.statusCode === 200 && !refusedSome) return resolve();
          reject(new Error(`HTTP ${response.statusCode}: ${text.slice(0, 300)}`));
        });
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

type Run = { rate: number; appUs: number; postgresUs: number };

async function measure(
  appPid: number,
  chains: number,
  send: (agent: http.Agent) => Promise<void>,
): Promise<Run> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const app0 = cpuMsOf(appPid);
  const pg0 = postgresCpu();
  const started = performance.now();
  try {
    await send(agent);
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the alerts this run raised are routed meanwhile
  return {
    rate: chains / seconds,
    appUs: ((cpuMsOf(appPid) - app0) * 1000) / chains,
    postgresUs: (postgresCpuSince(pg0) * 1000) / chains,
  };
}

const makeExports = (prefix: string) => makeExportsOf(prefix, CHAINS);
const bench = await startBenchApp();
const { baseUrl, key, appPid } = bench;
const viaOtlp = (streams: Buffer[][]) =>
  measure(appPid, CHAINS, (agent) =>
    inParallel(streams, (body) => post(agent, `${baseUrl}/v1/traces`, key, body, "application/x-protobuf")),
  );
const viaNative = (streams: string[][]) =>
  measure(appPid, CHAINS, (agent) =>
    inParallel(streams, (json) => post(agent, `${baseUrl}/api/v1/records`, key, json, "application/json")),
  );
const twins = (streams: Buffer[][]) => streams.map((stream) => stream.map((body) => nativeTwin(body).json));

/** Twelve exports to one session, one after another, with /api/health polled meanwhile. */
async function growOneSession() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const bodies = makeSessionGrowth("bench-grown-session", GROWTH_EXPORTS, GROWTH_SPANS);
  // A session of its own first, so that the 1st measured export does not pay for a cold server.
  for (const body of makeSessionGrowth("bench-warm-up-session", 1, GROWTH_SPANS)) {
    await post(agent, `${baseUrl}/v1/traces`, key, body, "application/x-protobuf");
  }
  let polling = true;
  let slowestHealthMs = 0;
  const pollHealth = async () => {
    while (polling) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/api/health`);
      await response.arrayBuffer();
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  // The same poll for 3 s with nothing else to do: the machine's own noise, to read the slowest answer against.
  const idle = pollHealth();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  polling = false;
  await idle;
  const slowestIdleMs = slowestHealthMs;
  polling = true;
  slowestHealthMs = 0;
  const poll = pollHealth();
  const seconds: number[] = [];
  try {
    for (const body of bodies) {
      const started = performance.now();
      await post(agent, `${baseUrl}/v1/traces`, key, body, "application/x-protobuf");
      seconds.push((performance.now() - started) / 1000);
    }
  } finally {
    polling = false;
    await poll;
    agent.destroy();
  }
  const first = seconds[0] ?? 0;
  const last = seconds[seconds.length - 1] ?? 0;
  console.log(
    `One session grown by ${GROWTH_EXPORTS} exports of ${GROWTH_SPANS.toLocaleString("en")} spans (one mcp.session.id, ` +
      "one export after another)",
  );
  console.log("| export | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  console.log(`| seconds | ${seconds.map((value) => value.toFixed(2)).join(" | ")} |`);
  console.log(
    `12th / 1st: ${(last / first).toFixed(2)}× (target ≤ 2×); slowest GET /api/health meanwhile: ` +
      `${Math.round(slowestHealthMs)} ms (idle: ${Math.round(slowestIdleMs)} ms)`,
  );
}

async function compareWithNative() {
  const check = nativeTwin(makeExports("check")[0]?.[0] ?? Buffer.alloc(0));
  if (check.records !== CALLS_PER_SESSION * SESSIONS_PER_EXPORT) {
    throw new Error(`an export builds ${check.records} records, not one a tools/call span`);
  }
  await viaOtlp(makeExports("warm-otlp"));
  await viaNative(twins(makeExports("warm-native")));
  const otlp: Run[] = [];
  const native: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    otlp.push(await viaOtlp(makeExports(`otlp-${round}`)));
    native.push(await viaNative(twins(makeExports(`native-${round}`))));
  }
  const n = (value: number) => Math.round(value).toLocaleString("en");
  const otlpRate = median(otlp.map((r) => r.rate));
  const nativeRate = median(native.map((r) => r.rate));
  console.log(
    `OTLP vs native ingestion, ${n(CHAINS)} chains a run (${SESSIONS_PER_EXPORT * CALLS_PER_SESSION} a request), ` +
      `${IN_FLIGHT} collectors in parallel, median of ${ROUNDS} alternating rounds`,
  );
  console.log("| path | records/s (median; each run) | app CPU µs/record | PostgreSQL CPU µs/record |");
  console.log("|---|---|---|---|");
  for (const [name, runs, rate] of [
    ["POST /v1/traces (protobuf)", otlp, otlpRate],
    ["POST /api/v1/records (JSON)", native, nativeRate],
  ] as const) {
    console.log(
      `| ${name} | ${n(rate)} (${runs.map((r) => n(r.rate)).join(", ")}) | ${n(median(runs.map((r) => r.appUs)))} | ${n(median(runs.map((r) => r.postgresUs)))} |`,
    );
  }
  console.log(`OTLP cost: ${(nativeRate / otlpRate).toFixed(2)}× the native path (target ≤ 1.5×)`);
}

/** The longest the app's event loop was held since the previous call, from its own /metrics. */
async function longestEventLoopStretchMs(readKey: string): Promise<number> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${readKey}` } });
  const text = await response.text();
  const line = text
    .split("\n")
    .find((candidate) => candidate.startsWith("nodejs_eventloop_lag_max_seconds "));
  if (!response.ok || !line) throw new Error(`no event loop figure on /metrics (HTTP ${response.status})`);
  return Number(line.split(" ")[1]) * 1000;
}

/** Exports just under 5 MiB, JSON and protobuf in turn, each between two scrapes of the event loop's longest delay. */
async function maxSizeExports() {
  const { createKey } = await import("../lib/server/keys/key-service");
  const { key: readKey } = await createKey("bench-read", ["read"]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const types = { json: "application/json", protobuf: "application/x-protobuf" } as const;
  const figures = { json: [] as number[], protobuf: [] as number[], idle: [] as number[] };
  const seconds = { json: [] as number[], protobuf: [] as number[] };
  let spans = { json: 0, protobuf: 0 };
  try {
    for (let round = -1; round < MAX_SIZE_EXPORTS; round++) {
      await longestEventLoopStretchMs(readKey);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      if (round >= 0) figures.idle.push(await longestEventLoopStretchMs(readKey));
      for (const encoding of ["json", "protobuf"] as const) {
        const made = makeMaxSizeExport(`bench-max-${encoding}-${round}`, encoding);
        spans = { ...spans, [encoding]: made.spans };
        await longestEventLoopStretchMs(readKey);
        const started = performance.now();
        await post(agent, `${baseUrl}/v1/traces`, key, made.body, types[encoding]);
        const stretch = await longestEventLoopStretchMs(readKey);
        if (round < 0) continue; // the first round warms the server up
        seconds[encoding].push((performance.now() - started) / 1000);
        figures[encoding].push(stretch);
      }
    }
  } finally {
    agent.destroy();
  }
  const row = (values: number[]) =>
    `${Math.round(median(values))} | ${Math.round(Math.max(...values))} | ${values.map(Math.round).join(", ")}`;
  console.log(
    `Exports just under 5 MiB, ${MAX_SIZE_EXPORTS} of each, one after another; the event loop's longest stretch`,
  );
  console.log("| body | median ms | max ms | each | seconds an export (median) |");
  console.log("|---|---|---|---|---|");
  for (const encoding of ["json", "protobuf"] as const) {
    console.log(
      `| ${encoding}, ${spans[encoding].toLocaleString("en")} spans | ${row(figures[encoding])} | ${median(seconds[encoding]).toFixed(2)} |`,
    );
  }
  console.log(`| nothing sent, 2 s | ${row(figures.idle)} | |`);
}

try {
  if (MAX_SIZE_ONLY) {
    await maxSizeExports();
  } else {
    if (!SESSION_ONLY) await compareWithNative();
    await growOneSession();
    await maxSizeExports();
  }
} finally {
  await bench.stop();
}
