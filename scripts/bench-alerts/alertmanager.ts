/**
 * Prometheus Alertmanager (Debian's `prometheus-alertmanager`, 0.25) as the bench runs it: a YAML config in a temp
 * dir equivalent to Receipt's bench tree, storage in the same dir, clustering off, listening on 127.0.0.1 only.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import http from "node:http";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { freePort } from "../../lib/server/db/embedded";
import { cpuMsOf, request } from "../ingest-bench-support";
import { type BenchAlert, BENCH_STATES, type BenchSystem, NOOP_SERVER } from "./system";

const BINARY = "/usr/bin/prometheus-alertmanager";

/** The binary, installed with apt-get when absent; null (with the reason printed) when that is not possible. */
export function alertmanagerBinary(): string | null {
  if (existsSync(BINARY)) return BINARY;
  console.log(`${BINARY} is absent: running apt-get install -y prometheus-alertmanager`);
  const installed = spawnSync("apt-get", ["install", "-y", "prometheus-alertmanager"], { stdio: "inherit" });
  if (installed.status === 0 && existsSync(BINARY)) return BINARY;
  console.log(
    `Could not install prometheus-alertmanager (${installed.error?.message ?? `apt-get exited ${installed.status}`}; ` +
      "it needs root and Debian's archive). The Alertmanager column is skipped.",
  );
  return null;
}

function configYaml(webhookUrl: string, withNoopRoute: boolean): string {
  // One group per alert (group_by chain), flushed at once, a 1 s group interval: the same as the Receipt tree.
  const noop = withNoopRoute ? [`    - receiver: bench`, `      matchers: ['server="${NOOP_SERVER}"']`] : [];
  return [
    "route:",
    "  receiver: bench",
    "  group_by: [chain]",
    "  group_wait: 0s",
    "  group_interval: 1s",
    "  repeat_interval: 1h",
    "  routes:",
    ...noop,
    ...BENCH_STATES.flatMap((state) => [`    - receiver: bench`, `      matchers: ['state="${state}"']`]),
    "receivers:",
    "  - name: bench",
    "    webhook_configs:",
    `      - url: ${webhookUrl}`,
    "        send_resolved: false",
    "",
  ].join("\n");
}

export async function startAlertmanager(
  binary: string,
  dir: string,
  webhookUrl: string,
): Promise<BenchSystem> {
  const configFile = path.join(dir, "alertmanager.yml");
  writeFileSync(configFile, configYaml(webhookUrl, false));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = "";
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${configFile}`,
      `--storage.path=${path.join(dir, "am-data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--cluster.listen-address=",
      "--log.level=warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`alertmanager exited early:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/-/ready`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`alertmanager did not become ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  return {
    name: "Alertmanager",
    source: "alertmanager",
    pid: child.pid,
    scratchDirs: [],
    prepare(alerts: readonly BenchAlert[]) {
      const startsAt = new Date().toISOString();
      const body = JSON.stringify(
        alerts.map((a) => ({
          labels: {
            alertname: "receipt",
            state: a.state,
            chain: a.id,
            server: a.server,
            severity: a.severity,
          },
          startsAt,
        })),
      );
      // The same client as Receipt's records (node:http, keep-alive), so both latencies start at the same point.
      return async () => {
        await request(agent, `${baseUrl}/api/v2/alerts`, { method: "POST", body });
        return performance.now();
      };
    },
    // Alertmanager keeps everything in its own process: no database to count.
    cpu: () => ({ appMs: cpuMsOf(child.pid ?? 0), postgresMs: 0 }),
    async insertNoopRoute() {
      writeFileSync(configFile, configYaml(webhookUrl, true));
      const reloaded = await fetch(`${baseUrl}/-/reload`, { method: "POST" });
      if (!reloaded.ok)
        throw new Error(`alertmanager reload failed: ${reloaded.status} ${await reloaded.text()}`);
    },
    async stop() {
      agent.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
