// bench:ingest --baseline: the current build and a baseline build, each on its own database of the same throwaway
// cluster, both running throughout; the rounds alternate which goes first, each run posts fresh records.
import { loadavg } from "node:os";
import { median } from "../ingest-bench-support";
import { startBaselineApp } from "./baseline-build";

type Run = { rate: number; appUs: number; postgresUs: number };
type Target = { baseUrl: string; key: string; appPid: number };
type ViaHttp = (baseUrl: string, key: string, size: number, prefix: string, appPid?: number) => Promise<Run>;

/** The most ingestion may drop for the rollups (issue 21). */
const ALLOWED_DROP = 0.1;

export async function compareWithBaseline(
  current: Target & { createEmptyDatabase: (name: string) => Promise<string> },
  baseline: { dir: string; commit: string },
  options: { total: number; rounds: number; viaHttp: ViaHttp; baselineEnv?: Record<string, string> },
) {
  const baselineApp = await startBaselineApp(
    baseline.dir,
    await current.createEmptyDatabase("bench_baseline"),
    options.baselineEnv,
  );
  try {
    const targets: [string, Target][] = [
      ["baseline", baselineApp],
      ["current", current],
    ];
    for (const [name, target] of targets)
      await options.viaHttp(target.baseUrl, target.key, 100, `warm-${name}`);
    const load = [loadavg()[0]];
    const rows: string[] = [];
    let worst = Number.POSITIVE_INFINITY;
    for (const size of [100, 1000]) {
      const runs: Record<string, Run[]> = { baseline: [], current: [] };
      for (let round = 0; round < options.rounds; round++) {
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const [name, target] of order) {
          const run = await options.viaHttp(
            target.baseUrl,
            target.key,
            size,
            `${name}${size}-${round}`,
            target.appPid,
          );
          runs[name]?.push(run);
          console.error(`batch ${size}, round ${round + 1}: ${name} ${Math.round(run.rate)} records/s`);
        }
      }
      load.push(loadavg()[0]);
      const before = runs.baseline ?? [];
      const after = runs.current ?? [];
      // Each round's ratio pairs the two builds' runs back to back; the median of those is the figure.
      const ratios = after.map((r, i) => r.rate / (before[i]?.rate ?? r.rate));
      const ratio = median(ratios);
      worst = Math.min(worst, ratio);
      const n = (value: number) => Math.round(value).toLocaleString("en");
      const each = (list: Run[]) => list.map((r) => n(r.rate)).join(", ");
      const perRound = ratios.map((r) => r.toFixed(2)).join(", ");
      rows.push(
        `| ${size} | ${n(median(before.map((r) => r.rate)))} (${each(before)}) | ${n(median(after.map((r) => r.rate)))} (${each(after)}) | **${ratio.toFixed(2)}** (${perRound}) | ${n(median(before.map((r) => r.appUs)))} / ${n(median(after.map((r) => r.appUs)))} | ${n(median(before.map((r) => r.postgresUs)))} / ${n(median(after.map((r) => r.postgresUs)))} |`,
      );
    }
    const env = Object.entries(options.baselineEnv ?? {}).map(([name, value]) => ` ${name}=${value}`);
    console.log(
      `Ingestion before/after: baseline ${baseline.commit.slice(0, 12)}${env.join("")} against the current build, ${options.total.toLocaleString("en")} records a run, ${options.rounds} alternating rounds, ratio = median of the rounds' ratios; load average ${load.map((l) => l?.toFixed(1)).join(" → ")}`,
    );
    console.log(
      "| batch | baseline records/s (each run) | current records/s (each run) | current ÷ baseline (each round) | app CPU µs/record, baseline / current | PostgreSQL CPU µs/record, baseline / current |",
    );
    console.log("|---|---|---|---|---|---|");
    for (const row of rows) console.log(row);
    if (worst < 1 - ALLOWED_DROP) {
      console.error(
        `ingestion dropped by more than ${ALLOWED_DROP * 100} %: ${worst.toFixed(2)} of the baseline`,
      );
      process.exitCode = 1;
    }
  } finally {
    await baselineApp.stop();
  }
}
