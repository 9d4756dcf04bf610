// `npm test`: every suite — build, Vitest (unit, integration on real PostgreSQL, collector on real MCP servers,
// the packed collector), Playwright (real Chromium on the production build) — then the slowest files and tests, and
// one closing line summed from the runners' JSON reports.
//
// After the build, Playwright (RECEIPT_E2E_SHARDS processes, default 1; each its own app, embedded PostgreSQL, ports
// and output folder) and Vitest (RECEIPT_VITEST_WORKERS workers, default 3) run side by side, Playwright at a lower CPU
// priority (nice 10, inherited by its app, database and Chromium) so Vitest, which holds the timing bounds and is the
// longer of the two, goes first; Playwright takes the cycles Vitest leaves. Three Vitest workers on two cores: its
// files spend much of their time waiting on the apps, databases and CLIs they start, and two workers left a third of
// the machine idle; a clean-clone `npm test` went from 780 to 687 s (docs/BENCHMARKS.md, "Test loop").
// RECEIPT_TESTS_SIDE_BY_SIDE=0 runs them one after another (Playwright first).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { playwrightTimings, type Timed, timingReport, vitestTimings } from "./timings";

const root = path.resolve(import.meta.dirname, "../..");
const reports = path.join(root, "test-results/reports");
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

type Totals = { passed: number; failed: number; skipped: number };
const totals: Totals = { passed: 0, failed: 0, skipped: 0 };
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const started = Date.now();
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
const positive = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};
const shards = positive("RECEIPT_E2E_SHARDS", 1);
const vitestWorkers = positive("RECEIPT_VITEST_WORKERS", 3);
const sequential = process.env.RECEIPT_TESTS_SIDE_BY_SIDE === "0";
/** Playwright's niceness beside Vitest: at 10 it gets about a tenth of a core Vitest wants, and every idle cycle. */
const E2E_NICE = ["-n", "10"];

function run(command: string, args: string[]) {
  console.log(`\n$ ${command} ${args.join(" ")}`);
  return spawnSync(command, args, { cwd: root, stdio: "inherit", env }).status ?? 1;
}

/**
 * Runs a command alongside others; its output lines carry `prefix` so the runners' logs stay apart.
 * Resolves with the exit status.
 */
function runAlongside(
  prefix: string,
  command: string,
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<number> {
  console.log(`\n$ ${command} ${args.join(" ")}   (output lines start with "${prefix}")`);
  const child = spawn(command, args, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...env, ...extraEnv },
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`${prefix}${line}\n`));
  }
  return new Promise((resolve) => {
    child.on("error", () => resolve(1));
    child.on("close", (code) => resolve(code ?? 1));
  });
}

function readJson<T>(file: string): T | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : null;
}

/** Starts `start` after the previous stream, or at once when the suites run side by side. */
let previous: Promise<unknown> = Promise.resolve();
function stream<T>(start: () => Promise<T>): Promise<T> {
  const running = sequential ? previous.then(start) : start();
  previous = running;
  return running;
}

const buildStatus = run("npm", ["run", "--silent", "build"]);
if (buildStatus !== 0) {
  console.log("build failed: counted as one failed test");
  totals.failed += 1;
}

// Playwright needs the build. Ports are chosen here, each once, so two shards never race for the same one.
const taken = new Set<number>();
const uniqueFreePort = async () => String(await portOutsideEphemeralRange(taken));
const shardRuns: { shard: string; report: string; env: Record<string, string> }[] = [];
for (let index = 0; buildStatus === 0 && index < shards; index++) {
  shardRuns.push({
    shard: `${index + 1}/${shards}`,
    report: path.join(reports, `playwright-${index + 1}.json`),
    env: {
      PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(reports, `playwright-${index + 1}.json`),
      E2E_PORT: await uniqueFreePort(),
      E2E_OIDC_PORT: await uniqueFreePort(),
      E2E_OUTPUT_DIR: `test-results/e2e-${index + 1}`,
      // No trace of every test (a quarter of the browser's CPU): a failure prints its error and screenshot, and the
      // spec run alone (`npx playwright test <spec>`) records the trace.
      RECEIPT_E2E_TRACE: "off",
      // Nor the full-page screenshots `snap` saves for a person to look at (a spec run alone takes them): about 1 s of
      // CPU each; the page still has to settle at both widths.
      RECEIPT_E2E_SCREENS: "off",
    },
  });
}
const playwrightRuns = shardRuns.map(({ shard, report, env: shardEnv }) => ({
  report,
  status: stream(() =>
    runAlongside(
      shards > 1 ? `e2e ${shard} │ ` : "e2e │ ",
      sequential ? "npx" : "nice",
      [
        ...(sequential ? [] : [...E2E_NICE, "npx"]),
        "playwright",
        "test",
        "--reporter=list,json",
        ...(shards > 1 ? [`--shard=${shard}`] : []),
      ],
      shardEnv,
    ).then((status) => {
      console.log(`\nPlaywright ${shard} finished after ${elapsed()} (exit ${status})`);
      return status;
    }),
  ),
}));

const vitestReport = path.join(reports, "vitest.json");
const vitestFileTimes = path.join(reports, "vitest-file-times.json");
const vitestStatus = await stream(() =>
  runAlongside(
    "",
    "npx",
    [
      "vitest",
      "run",
      `--maxWorkers=${vitestWorkers}`,
      "--reporter=default",
      "--reporter=json",
      "--reporter=./scripts/test-loop/vitest-file-times.ts",
      `--outputFile.json=${vitestReport}`,
    ],
    { RECEIPT_FILE_TIMES: vitestFileTimes },
  ),
);
console.log(`\nVitest finished after ${elapsed()} (exit ${vitestStatus})`);

type VitestCounts = {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
};
const vitest = readJson<VitestCounts & Parameters<typeof vitestTimings>[0]>(vitestReport);
if (vitest) {
  totals.passed += vitest.numPassedTests;
  totals.failed += vitest.numFailedTests + (vitest.numFailedTests === 0 ? vitest.numFailedTestSuites : 0);
  totals.skipped += vitest.numPendingTests + vitest.numTodoTests;
}
if (!vitest || (vitestStatus !== 0 && totals.failed === 0)) totals.failed += 1;
const timedFiles: Timed[] = [];
const timedTests: Timed[] = [];
const fromVitest = vitestTimings(vitest, readJson(vitestFileTimes), root);
timedFiles.push(...fromVitest.files);
timedTests.push(...fromVitest.tests);

type PlaywrightReport = Parameters<typeof playwrightTimings>[0] & {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
};
for (const run of playwrightRuns) {
  const status = await run.status;
  const playwright = readJson<PlaywrightReport>(run.report);
  if (playwright) {
    totals.passed += playwright.stats.expected;
    totals.failed += playwright.stats.unexpected + playwright.stats.flaky;
    totals.skipped += playwright.stats.skipped;
    const fromPlaywright = playwrightTimings(playwright);
    timedFiles.push(...fromPlaywright.files);
    timedTests.push(...fromPlaywright.tests);
  }
  if (!playwright || (status !== 0 && playwright.stats.unexpected === 0)) totals.failed += 1;
}

console.log(`\nEvery suite finished after ${elapsed()}.`);
for (const line of timingReport(timedFiles, timedTests)) console.log(line);
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
