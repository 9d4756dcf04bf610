/**
 * The four measurements, identical for both systems. Each uses fresh alert ids, so a scenario's webhooks are told
 * apart from an earlier one's by id, not by time.
 */
import { performance } from "node:perf_hooks";
import type { Arrival, BenchReceiver } from "./receiver";
import type { StatementCost } from "../bench/statement-stats";
import { type BenchAlert, benchAlerts, type BenchSystem, type StageTimes, stagesBetween } from "./system";

export type Knobs = {
  single: number;
  storm: number;
  deliveries: number;
  firing: number;
  settleMs: number;
};

export type Results = {
  /** Webhook arrival minus the POST's response, ms, one alert at a time. */
  latencies: number[];
  singleMissed: number;
  /** POST sent to the storm's last webhook, ms (null: not all arrived in time). */
  stormMs: number | null;
  stormArrived: number;
  /** POST sent to the storm's response, ms: what ingestion (and routing at commit) took before any webhook could go. */
  stormAnsweredMs: number;
  deliveriesPerSecond: number;
  deliveriesArrived: number;
  /** Webhooks naming an already delivered alert after the no-op route insert (the settle window, then until quiet). */
  resends: number;
  /** When the last of them arrived, ms after the insert began. */
  lastResendMs: number | null;
  /** Alerts firing when the route was inserted (the warm-up's and the scenario's). */
  resendFiring: number;
  resendFiringDelivered: boolean;
  /** Receipt's stages (`receipt_alert_stage_seconds`) during the single alerts, the storm and the rate run. */
  stages: { single: StageTimes; storm: StageTimes; rate: StageTimes } | null;
  /** Receipt's costliest PostgreSQL statements during the same three. */
  statements: { single: StatementCost[]; storm: StatementCost[]; rate: StatementCost[] } | null;
  /**
   * CPU an alert in the rate run (ingestion to recorded attempt), µs: the system's own process (Receipt's app),
   * PostgreSQL's (0 for Alertmanager), and the bench's process (the client posting alerts and the receiver).
   */
  rateCpuUs: { app: number; postgres: number; bench: number } | null;
  /** The mean size of the rate run's webhooks, bytes. */
  webhookBytes: number;
};

const STATEMENTS_SHOWN = 15;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BATCH = 100;

/**
 * Runs `scenario` and what the system's stages and statements took meanwhile (the last attempt recorded after its
 * webhook).
 */
async function withStages<T>(system: BenchSystem, scenario: () => Promise<T>) {
  const before = await system.stages?.();
  await system.statements?.reset();
  const result = await scenario();
  if (!before || !system.stages) return { result, stages: null, statements: null };
  await sleep(500);
  const stages = stagesBetween(before, await system.stages());
  return { result, stages, statements: (await system.statements?.top(STATEMENTS_SHOWN)) ?? null };
}

type CpuMark = { system: ReturnType<NonNullable<BenchSystem["cpu"]>> | undefined; bench: NodeJS.CpuUsage };
const cpuMark = (system: BenchSystem): CpuMark => ({ system: system.cpu?.(), bench: process.cpuUsage() });

/** The CPU used since `before`, an alert (read after the rate run's last attempt was recorded). */
function cpuPerAlert(system: BenchSystem, before: CpuMark, n: number) {
  const after = system.cpu?.();
  if (!before.system || !after) return null;
  const bench = process.cpuUsage(before.bench);
  return {
    app: ((after.appMs - before.system.appMs) / n) * 1000,
    postgres: ((after.postgresMs - before.system.postgresMs) / n) * 1000,
    bench: (bench.user + bench.system) / n,
  };
}

/** The requests for `alerts`, BATCH a request, built now; sending them one after the other is timed, not this. */
function prepareBatches(system: BenchSystem, alerts: BenchAlert[]): (() => Promise<number>)[] {
  const sends: (() => Promise<number>)[] = [];
  for (let i = 0; i < alerts.length; i += BATCH) sends.push(system.prepare(alerts.slice(i, i + BATCH)));
  return sends;
}

async function sendAll(sends: (() => Promise<number>)[]) {
  for (const send of sends) await send();
}

export async function runScenarios(
  system: BenchSystem,
  receiver: BenchReceiver,
  knobs: Knobs,
  log: (line: string) => void,
): Promise<Results> {
  const run = `${system.source}-${Date.now().toString(36)}`;
  const waitFor = (ids: string[], timeoutMs: number) => receiver.waitForAll(system.source, ids, timeoutMs);

  // Warm-up (first requests load route modules, JIT): not counted.
  const warm = benchAlerts(`${run}-warm`, 5);
  await system.prepare(warm)();
  await waitFor(
    warm.map((a) => a.id),
    30_000,
  );

  // First, while only the warm-up and these alerts fire, so every webhook after the insert is a re-send of one of
  // them (the later scenarios' alerts would otherwise queue ahead of them and make the count depend on the order).
  log(`${system.name}: ${knobs.firing} alerts firing, then a route that matches nothing is inserted`);
  const firing = benchAlerts(`${run}-firing`, knobs.firing);
  await sendAll(prepareBatches(system, firing));
  const firingSeen = await waitFor(
    firing.map((a) => a.id),
    120_000,
  );
  await sleep(2_000); // stragglers of the initial sends are not re-sends
  const alertsIn = (arrivals: Arrival[]) => arrivals.reduce((n, arrival) => n + arrival.ids.length, 0);
  const before = receiver.arrivals(system.source).length;
  const resent = () => receiver.arrivals(system.source).slice(before);
  const insertedAt = performance.now();
  await system.insertNoopRoute();
  await sleep(knobs.settleMs);
  // Re-sends go out no faster than the system delivers, and may come in waves: keep counting until a whole settle
  // window passes without one (at most 3 minutes).
  for (let seen = resent().length; performance.now() < insertedAt + 180_000; ) {
    await sleep(knobs.settleMs);
    if (resent().length === seen) break;
    seen = resent().length;
  }
  const resends = alertsIn(resent());
  const lastResendMs = resent().length > 0 ? Math.max(...resent().map((a) => a.at)) - insertedAt : null;
  const firingCount = warm.length + firing.length;

  log(`${system.name}: ${knobs.single} single alerts, one at a time`);
  const latencies: number[] = [];
  let singleMissed = 0;
  const single = await withStages(system, async () => {
    for (const alert of benchAlerts(`${run}-single`, knobs.single)) {
      // Built right before its send (so its record is as fresh as the others'); latency counts from the response.
      const respondedAt = await system.prepare([alert])();
      const arrived = (await waitFor([alert.id], 15_000)).get(alert.id);
      if (arrived === undefined) singleMissed++;
      else latencies.push(arrived - respondedAt);
    }
  });

  log(`${system.name}: storm of ${knobs.storm} critical alerts in one request`);
  const storm = benchAlerts(`${run}-storm`, knobs.storm, ["effect_unknown", "false_success"]);
  const sendStorm = system.prepare(storm);
  let stormSent = 0;
  let stormAnsweredMs = 0;
  const {
    result: stormSeen,
    stages: stormStages,
    statements: stormStatements,
  } = await withStages(system, async () => {
    stormSent = performance.now();
    stormAnsweredMs = (await sendStorm()) - stormSent;
    return waitFor(
      storm.map((a) => a.id),
      90_000,
    );
  });
  const stormMs = stormSeen.size === storm.length ? Math.max(...stormSeen.values()) - stormSent : null;

  log(`${system.name}: ${knobs.deliveries} alerts in distinct groups, ${BATCH} a request`);
  const many = benchAlerts(`${run}-rate`, knobs.deliveries);
  const manySends = prepareBatches(system, many);
  let manySent = 0;
  const cpuBefore = cpuMark(system);
  const rateArrivalsBefore = receiver.arrivals(system.source).length;
  const {
    result: manySeen,
    stages: rateStages,
    statements: rateStatements,
  } = await withStages(system, async () => {
    manySent = performance.now();
    await sendAll(manySends);
    return waitFor(
      many.map((a) => a.id),
      120_000,
    );
  });
  const lastRate = Math.max(manySent, ...manySeen.values());
  const deliveriesPerSecond = lastRate > manySent ? manySeen.size / ((lastRate - manySent) / 1000) : 0;
  const rateArrivals = receiver.arrivals(system.source).slice(rateArrivalsBefore);
  const webhookBytes = rateArrivals.reduce((sum, a) => sum + a.bytes, 0) / Math.max(1, rateArrivals.length);

  return {
    latencies,
    singleMissed,
    stormMs,
    stormArrived: stormSeen.size,
    stormAnsweredMs,
    deliveriesPerSecond,
    deliveriesArrived: manySeen.size,
    resends,
    lastResendMs,
    resendFiring: firingCount,
    resendFiringDelivered: firingSeen.size === firing.length,
    stages:
      single.stages && stormStages && rateStages
        ? { single: single.stages, storm: stormStages, rate: rateStages }
        : null,
    rateCpuUs: cpuPerAlert(system, cpuBefore, many.length),
    webhookBytes,
    statements:
      single.statements && stormStatements && rateStatements
        ? { single: single.statements, storm: stormStatements, rate: rateStatements }
        : null,
  };
}
