/**
 * What the app spends on a request before it writes anything (issue 4): `npm run bench:ingest-floor`.
 *
 * The same app, database and load generator as `bench:ingest` (run `npm run build` first), three requests in
 * flight. It measures the app's CPU per request for:
 * - `GET /api/health` (one `select 1`): what Next.js costs a route handler on this machine;
 * - a batch of one new record, stored: the smallest complete ingestion request;
 * - batches of 100 and 1000 records whose last record is invalid: the app reads, parses, validates, classifies and
 *   serialises every record, then answers 422 and stores nothing — everything an ingestion request costs the app
 *   before its first write.
 * With bench:ingest's figures for the same batches, this splits the app's CPU per record into what comes before the
 * database and what the writes add.
 */
import http from "node:http";
import {
  IN_FLIGHT,
  batches,
  cpuMsOf,
  inParallel,
  makeRecords,
  postRecords,
  request,
  startBenchApp,
} from "./ingest-bench-support";

type Floor = {
  name: string;
  requests: number;
  records: number;
  seconds: number;
  appMs: number;
  mainMs: number;
};

async function measureFloor(
  appPid: number,
  name: string,
  streams: string[][],
  send: (agent: http.Agent, body: string) => Promise<void>,
  recordsPerRequest: number,
): Promise<Floor> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const requests = streams.reduce((sum, stream) => sum + stream.length, 0);
  const app0 = cpuMsOf(appPid);
  const main0 = cpuMsOf(`${appPid}/task/${appPid}`);
  const started = performance.now();
  try {
    await inParallel(streams, (body) => send(agent, body));
  } finally {
    agent.destroy();
  }
  return {
    name,
    requests,
    records: requests * recordsPerRequest,
    seconds: (performance.now() - started) / 1000,
    appMs: cpuMsOf(appPid) - app0,
    mainMs: cpuMsOf(`${appPid}/task/${appPid}`) - main0,
  };
}

/** IN_FLIGHT streams of `count` request bodies each. */
function streamsOf(count: number, body: (stream: number, i: number) => string): string[][] {
  return Array.from({ length: IN_FLIGHT }, (_, s) => Array.from({ length: count }, (_, i) => body(s, i)));
}

/** `size` valid records of the bench's workload and one invalid last record: the batch is refused with 422. */
function refusedBatch(prefix: string, size: number): string {
  const records: unknown[] = makeRecords(prefix, size);
  records[size - 1] = { ...(records[size - 1] as object), schemaVersion: 99 };
  return JSON.stringify({ records });
}

const bench = await startBenchApp();
const { baseUrl, key, appPid } = bench;
const health = (agent: http.Agent) => request(agent, `${baseUrl}/api/health`, { method: "GET" });
const stored = (agent: http.Agent, body: string) => postRecords(agent, baseUrl, key, body);
const refused = (agent: http.Agent, body: string) => postRecords(agent, baseUrl, key, body, 422);

try {
  // Warm-up (JIT, connection pools, the routes' first compilation), on records of its own.
  const warm = batches(makeRecords("warm", 6000), 100).map((b) => JSON.stringify({ records: b }));
  await measureFloor(appPid, "warm-up", [warm], stored, 100);
  await measureFloor(
    appPid,
    "warm-up",
    streamsOf(20, (s, i) => refusedBatch(`warm-r${s}-${i}`, 100)),
    refused,
    100,
  );

  const floors: Floor[] = [];
  for (let round = 0; round < 2; round++) {
    floors.push(
      await measureFloor(
        appPid,
        "GET /api/health",
        streamsOf(1000, () => ""), // no body: the streams only count the requests
        health,
        0,
      ),
    );
    const single = streamsOf(1000, (s, i) =>
      JSON.stringify({ records: makeRecords(`one${round}-${s}-${i}`, 1) }),
    );
    floors.push(await measureFloor(appPid, "POST 1 record, stored", single, stored, 1));
    for (const size of [100, 1000]) {
      const count = size === 100 ? 100 : 15;
      const bodies = streamsOf(count, (s, i) => refusedBatch(`refused${size}-${round}-${s}-${i}`, size));
      floors.push(
        await measureFloor(appPid, `POST ${size} records, the last invalid → 422`, bodies, refused, size),
      );
    }
  }

  const f = (value: number, digits = 0) =>
    value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  console.log(`The app's CPU before its first write, ${IN_FLIGHT} requests in flight, two rounds`);
  console.log(
    "| request | requests/s | app CPU ms/request | main thread ms/request | app CPU µs/record | main thread µs/record |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const floor of floors) {
    const perRecord = (ms: number) => (floor.records > 0 ? f((ms * 1000) / floor.records) : "—");
    console.log(
      `| ${floor.name} | ${f(floor.requests / floor.seconds)} | ${f(floor.appMs / floor.requests, 2)} | ${f(floor.mainMs / floor.requests, 2)} | ${perRecord(floor.appMs)} | ${perRecord(floor.mainMs)} |`,
    );
  }
} finally {
  await bench.stop();
}
