// `npm test`: every suite — build, Vitest (unit, integration on real PostgreSQL, collector on real MCP servers),
// Playwright (real Chromium on the production build) — and one closing line summed from the runners' JSON reports.
// After the build, Playwright then Vitest; RECEIPT_TESTS_SIDE_BY_SIDE=1 runs them at the same time (each has its own
// app servers and PostgreSQL on free ports), which is faster on an idle machine but puts the collector's timing
// bounds and the e2e waits under CPU contention on two cores, so it is not the default.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

const root = path.resolve(import.meta.dirname, "..");
const reports = path.join(root, "test-results/reports");
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

type Totals = { passed: number; failed: number; skipped: number };
const totals: Totals = { passed: 0, failed: 0, skipped: 0 };
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const started = Date.now();
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;

function run(command: string, args: string[]) {
  console.log(`\n$ ${command} ${args.join(" ")}`);
  return spawnSync(command, args, { cwd: root, stdio: "inherit", env }).status ?? 1;
}

/**
 * Runs a command alongside another; its output lines carry `prefix` so the two runners' logs stay apart.
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

function readJson(file: string): unknown {
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
}

const buildStatus = run("npm", ["run", "--silent", "build"]);
if (buildStatus !== 0) {
  console.log("build failed: counted as one failed test");
  totals.failed += 1;
}

const playwrightReport = path.join(reports, "playwright.json");
// Playwright needs the build; started first, as the longer of the two.
const playwrightRun =
  buildStatus === 0
    ? runAlongside("e2e │ ", "npx", ["playwright", "test", "--reporter=list,json"], {
        PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
      }).then((status) => {
        console.log(`\nPlaywright finished after ${elapsed()} (exit ${status})`);
        return status;
      })
    : null;

if (process.env.RECEIPT_TESTS_SIDE_BY_SIDE !== "1") await playwrightRun;

const vitestReport = path.join(reports, "vitest.json");
// Two workers on this two-core machine (Vitest's default is one fewer than the cores): most integration time is
// spent waiting on an app, PostgreSQL or a timer, so two files at once finish the suite sooner.
const vitestStatus = await runAlongside("", "npx", [
  "vitest",
  "run",
  "--maxWorkers=2",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${vitestReport}`,
]);
console.log(`\nVitest finished after ${elapsed()} (exit ${vitestStatus})`);
const vitest = readJson(vitestReport) as {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
} | null;
if (vitest) {
  totals.passed += vitest.numPassedTests;
  totals.failed += vitest.numFailedTests + (vitest.numFailedTests === 0 ? vitest.numFailedTestSuites : 0);
  totals.skipped += vitest.numPendingTests + vitest.numTodoTests;
}
if (!vitest || (vitestStatus !== 0 && totals.failed === 0)) totals.failed += 1;

type PlaywrightReport = { stats: { expected: number; unexpected: number; flaky: number; skipped: number } };
if (playwrightRun) {
  const status = await playwrightRun;
  const playwright = readJson(playwrightReport) as PlaywrightReport | null;
  if (playwright) {
    totals.passed += playwright.stats.expected;
    totals.failed += playwright.stats.unexpected + playwright.stats.flaky;
    totals.skipped += playwright.stats.skipped;
  }
  if (!playwright || (status !== 0 && playwright.stats.unexpected === 0)) totals.failed += 1;
}

console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
