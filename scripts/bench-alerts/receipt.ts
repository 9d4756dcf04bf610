/**
 * Receipt as the bench runs it: the production build on a throwaway embedded PostgreSQL (startBenchApp, as
 * bench:ingest does), signed in as admin, with a routing tree equivalent to Alertmanager's: one channel whose only
 * target is a signed webhook to the bench receiver, one group per chain, groupWait 0s, groupInterval 1s.
 */
import http from "node:http";
import { existsSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { HealthRecord } from "../../lib/contract";
import type { TRoutingConfig } from "../../lib/routing/config";
import { adminCookie } from "../../tests/support/dashboard-session";
import { routingApi, seedRecord } from "../../tests/support/routing-helpers";
import { cpuMsOf, postgresCpuSince, postRecords, startBenchApp } from "../ingest-bench-support";
import { type BenchAlert, BENCH_STATES, type BenchSystem, NOOP_SERVER, parseStageTotals } from "./system";

const root = path.resolve(import.meta.dirname, "../..");

export function routingConfig(webhookUrl: string, withNoopRoute: boolean): TRoutingConfig {
  const noop = withNoopRoute
    ? [{ name: "matches nothing", matchers: [`server="${NOOP_SERVER}"`], receiver: "bench" }]
    : [];
  return {
    version: 1,
    channels: [
      {
        name: "bench",
        ownerRole: "bench",
        targets: [{ type: "webhook", url: webhookUrl, secret: "bench-alerts-secret-0123456789" }],
      },
    ],
    route: {
      name: "root",
      receiver: "bench",
      groupBy: ["chain"],
      groupWait: "0s",
      groupInterval: "1s",
      repeatInterval: "1h",
      // Inserted first, as the measurement did: every later route's position moves by one.
      routes: [
        ...noop,
        ...BENCH_STATES.map((state) => ({ name: state, matchers: [`state="${state}"`], receiver: "bench" })),
      ],
    },
    inhibitRules: [],
    silences: [],
  };
}

/** A valid record classified as the alert's state, its own chain, session and server. */
function recordFor(alert: BenchAlert): HealthRecord {
  const tag = alert.id.slice("chain:".length);
  return seedRecord(alert.state, tag, (record) => {
    if (record.session.server) record.session.server.name = alert.server;
  });
}

export async function ensureBuild() {
  if (existsSync(path.join(root, ".next/BUILD_ID"))) return;
  console.log("No production build (.next/BUILD_ID): running npm run build");
  const { spawnSync } = await import("node:child_process");
  const built = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  if (built.status !== 0) throw new Error("npm run build failed");
}

export async function startReceipt(webhookUrl: string): Promise<BenchSystem> {
  // Statement statistics on (pg_stat_statements): a few per cent of PostgreSQL's time, counted against Receipt.
  const app = await startBenchApp({ statementStats: true });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    const cookie = await adminCookie(app.baseUrl);
    const api = routingApi(app.baseUrl, cookie);
    await api.saveConfig(routingConfig(webhookUrl, false));
    return {
      name: "Receipt",
      source: "receipt",
      pid: app.appPid,
      scratchDirs: [app.dataDir],
      prepare(alerts) {
        const body = JSON.stringify({ records: alerts.map(recordFor) });
        return async () => {
          await postRecords(agent, app.baseUrl, app.key, body);
          return performance.now();
        };
      },
      ...(app.statements ? { statements: app.statements } : {}),
      cpu: () => ({ appMs: cpuMsOf(app.appPid), postgresMs: postgresCpuSince(new Map()) }),
      async stages() {
        const scrape = await fetch(`${app.baseUrl}/metrics`, { headers: { cookie } });
        if (!scrape.ok) throw new Error(`GET /metrics answered ${scrape.status}`);
        return parseStageTotals(await scrape.text());
      },
      async insertNoopRoute() {
        await api.saveConfig(routingConfig(webhookUrl, true));
      },
      async stop() {
        agent.destroy();
        await app.stop();
      },
    };
  } catch (error) {
    agent.destroy();
    await app.stop();
    throw error;
  }
}
