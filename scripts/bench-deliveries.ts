// npm run bench:deliveries [-- --count 5000 --targets 32 --handed-over]
// Delivery throughput of one instance: inserts N due deliveries spread over T webhook targets (paths of one local
// receiver, a separate Node process on 127.0.0.1), then runs the real delivery engine (sendDueDeliveries, as the
// delivery tick calls it) in this process against a throwaway embedded PostgreSQL until every attempt is recorded.
// Prints deliveries/s, the receiver's connection count (keep-alive reuse) and checks every row ended delivered.
// --handed-over: the deliveries are handed to the engine by id, as this instance's own commits hand theirs (claimed by
// id, not by the due claim's search); the tick still runs.
// No app build needed: the worker is called directly, so the figure is the engine's, not Next.js's.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres } from "../lib/server/db/embedded";
import { applyMigrations } from "../lib/server/db/migrate";
import { cpuMsOf } from "./ingest-bench-support";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "5000" },
    targets: { type: "string", default: "32" },
    "handed-over": { type: "boolean", default: false },
  },
});
const count = Number(values.count);
const targets = Number(values.targets);

// The receiver: answers 200 at once, counts requests, distinct delivery ids and TCP connections.
const RECEIVER = `
const http = require("node:http");
let requests = 0, connections = 0;
const ids = new Set();
const server = http.createServer((req, res) => {
  if (req.method === "GET") return res.end(JSON.stringify({ requests, connections, ids: ids.size }));
  requests++;
  ids.add(req.headers["receipt-delivery-id"]);
  req.resume();
  req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
});
server.on("connection", () => connections++);
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

async function startReceiver(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["-e", RECEIVER], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) =>
    child.stdout?.once("data", (d) => resolve(String(d).trim())),
  );
  return { url: `http://127.0.0.1:${port}`, child };
}

/** CPU ms used so far by our PostgreSQL cluster: its postmaster and the backends it forked (not other clusters). */
function clusterCpuMs(postmasterPid: number): number {
  let total = cpuMsOf(postmasterPid);
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const parent = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1];
      if (Number(parent) === postmasterPid) total += cpuMsOf(pid);
    } catch {}
  }
  return total;
}

const dataDir = mkdtempSync(path.join(tmpdir(), "receipt-bench-deliveries-"));
const server = await startEmbeddedPostgres(path.join(dataDir, "pg"));
const receiver = await startReceiver();
try {
  const admin = new pg.Client({ connectionString: server.serverUrl("postgres") });
  await admin.connect();
  await admin.query(`create database "bench_deliveries"`);
  await admin.end();
  const url = server.serverUrl("bench_deliveries");
  await applyMigrations(url);
  process.env.DATABASE_URL = url;
  // The bench receiver listens on 127.0.0.1.
  process.env.RECEIPT_OUTBOUND_ALLOW = "127.0.0.0/8";
  const { inTransaction } = await import("../lib/server/db/sql");
  const { insertDeliveries } = await import("../lib/server/db/routing-deliveries");
  const { sendDueDeliveries, deliveriesSettled, takeNewDeliveries } = await import(
    "../lib/server/routing/delivery-worker"
  );
  const { alertSettings } = await import("../lib/server/routing/settings");

  const rows = Array.from({ length: count }, (_, i) => ({
    groupKey: `bench-${i}`,
    channel: "bench",
    targetIndex: i % targets,
    targetType: "webhook",
    url: `${receiver.url}/hook/${i % targets}`,
    body: JSON.stringify({ version: "receipt.alerts.v1", groupKey: `bench-${i}`, alerts: [{ n: i }] }),
    headers: { "content-type": "application/json" },
    signingSecret: "bench-secret-0123456789",
    kind: "notification" as const,
    alertFingerprints: [`fp-${i}`],
    maxAttempts: 3,
  }));
  const ids = await inTransaction((sql) => insertDeliveries(sql, rows, new Date()));

  const { perTarget, inFlight } = alertSettings();
  const postmaster = server.postmasterPid ?? 0;
  const cpu0 = {
    engine: process.cpuUsage(),
    db: clusterCpuMs(postmaster),
    receiver: cpuMsOf(receiver.child.pid ?? 0),
  };
  const started = performance.now();
  if (values["handed-over"]) takeNewDeliveries(rows.map((row, i) => ({ ...row, id: ids[i] as bigint })));
  // As the delivery tick does (every 50 ms here); each finished send also claims again by itself.
  let done = false;
  const tick = async () => {
    while (!done) {
      await sendDueDeliveries();
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const ticking = tick();
  const stats = async () =>
    (await (await fetch(receiver.url)).json()) as { requests: number; connections: number; ids: number };
  while ((await stats()).requests < count) await new Promise((r) => setTimeout(r, 20));
  const sentSeconds = (performance.now() - started) / 1000;
  await deliveriesSettled();
  const recordedSeconds = (performance.now() - started) / 1000;
  done = true;
  await ticking;
  const engineCpu = process.cpuUsage(cpu0.engine);
  const perDelivery = (ms: number) => `${((ms * 1000) / count).toFixed(0)} µs`;
  const cpu = {
    engine: (engineCpu.user + engineCpu.system) / 1000,
    db: clusterCpuMs(postmaster) - cpu0.db,
    receiver: cpuMsOf(receiver.child.pid ?? 0) - cpu0.receiver,
  };

  const check = new pg.Client({ connectionString: url });
  await check.connect();
  const statuses = (await check.query("select status, count(*)::int as n from deliveries group by status"))
    .rows;
  const attempts = (await check.query("select count(*)::int as n from delivery_attempts")).rows[0].n;
  await check.end();
  const received = await stats();
  console.log(
    `deliveries: ${count} over ${targets} targets (per-target cap ${perTarget}, in flight ${inFlight}), ` +
      (values["handed-over"] ? "handed over by id" : "claimed by the due claim"),
  );
  console.log(
    `all POSTs received: ${sentSeconds.toFixed(2)} s → ${Math.round(count / sentSeconds)} deliveries/s`,
  );
  console.log(
    `all attempts recorded: ${recordedSeconds.toFixed(2)} s → ${Math.round(count / recordedSeconds)} deliveries/s`,
  );
  console.log(
    `receiver: ${received.requests} requests, ${received.ids} distinct delivery ids, ${received.connections} connections`,
  );
  console.log(
    `CPU per delivery: engine ${perDelivery(cpu.engine)}, PostgreSQL ${perDelivery(cpu.db)}, receiver ${perDelivery(cpu.receiver)}` +
      ` (load average now ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores)`,
  );
  console.log(`rows: ${statuses.map((s) => `${s.status} ${s.n}`).join(", ")}; attempts logged: ${attempts}`);
  await (await import("../lib/server/db/client")).getPool().end();
  const ok = statuses.length === 1 && statuses[0].status === "delivered" && received.ids === count;
  if (!ok) process.exitCode = 1;
} finally {
  receiver.child.kill();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit();
}
