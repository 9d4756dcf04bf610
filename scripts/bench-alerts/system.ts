import { STATE_SEVERITY } from "../../lib/routing/alerts";
import type { StatementStats } from "../bench/statement-stats";

/** What the bench drives on each side: send alerts, insert a route that matches nothing, stop. */
export const BENCH_STATES = ["effect_unknown", "false_success", "tool_failed"] as const;
export type BenchState = (typeof BENCH_STATES)[number];

/** A server name no alert carries: the inserted route's only matcher. */
export const NOOP_SERVER = "bench-no-such-server";

/** One alert: `id` becomes Receipt's chain id and Alertmanager's `chain` label, so the receiver can tell them apart. */
export type BenchAlert = { id: string; state: BenchState; server: string; severity: string };

export type BenchSystem = {
  name: string;
  /** The receiver path its webhooks arrive on. */
  source: string;
  pid: number | undefined;
  /** Directories to remove if the bench dies before stop() finishes. */
  scratchDirs: string[];
  /**
   * Builds the one request that carries these alerts, before any clock starts (Receipt's health records cost the
   * bench far more to build than Alertmanager's label sets), and returns its send: it posts the request and resolves
   * with `performance.now()` at the response.
   */
  prepare: (alerts: readonly BenchAlert[]) => () => Promise<number>;
  insertNoopRoute: () => Promise<void>;
  stop: () => Promise<void>;
  /** Receipt's `receipt_alert_stage_seconds` so far, by stage: sum (s) and count. */
  stages?: () => Promise<StageTotals>;
  /** Receipt's PostgreSQL statements (pg_stat_statements): reset, then the costliest since. */
  statements?: StatementStats;
  /** CPU ms its processes have used so far: the app's, and its PostgreSQL's. */
  cpu?: () => { appMs: number; postgresMs: number };
};

export type StageTotals = Map<string, { sum: number; count: number }>;

/** The stage histogram's sums and counts in a Prometheus text scrape. */
export function parseStageTotals(scrape: string): StageTotals {
  const totals: StageTotals = new Map();
  for (const match of scrape.matchAll(
    /^receipt_alert_stage_seconds_(sum|count)\{stage="([a-z_]+)"\} (\S+)$/gm,
  )) {
    const [, field, stage, value] = match as unknown as [string, "sum" | "count", string, string];
    const entry = totals.get(stage) ?? { sum: 0, count: 0 };
    entry[field] = Number(value);
    totals.set(stage, entry);
  }
  return totals;
}

/** What each stage took between two scrapes: its mean in ms and how many were observed. */
export function stagesBetween(before: StageTotals, after: StageTotals) {
  return [...after].map(([stage, { sum, count }]) => {
    const earlier = before.get(stage) ?? { sum: 0, count: 0 };
    const n = count - earlier.count;
    return { stage, count: n, meanMs: n > 0 ? ((sum - earlier.sum) / n) * 1000 : null };
  });
}
export type StageTimes = ReturnType<typeof stagesBetween>;

/** Receipt's own severity label, so Alertmanager's alerts carry the same one. */
export const severityOf = (state: BenchState): string => STATE_SEVERITY[state];

export function benchAlerts(prefix: string, count: number, states: readonly BenchState[] = BENCH_STATES) {
  return Array.from({ length: count }, (_, i): BenchAlert => {
    const state = states[i % states.length] as BenchState;
    return { id: `chain:${prefix}-${i}`, state, server: `srv-${prefix}-${i}`, severity: severityOf(state) };
  });
}
