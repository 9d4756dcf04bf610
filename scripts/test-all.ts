// `npm test`: every suite — build, Vitest (unit, integration on real PostgreSQL, collector on real MCP servers),
// Playwright (real Chromium on the production build) — and one closing line summed from the runners' JSON reports.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const reports = path.join(root, "test-results/reports");
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

type Totals = { passed: number; failed: number; skipped: number };
const totals: Totals = { passed: 0, failed: 0, skipped: 0 };
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

function run(command: string, args: string[], extraEnv: Record<string, string> = {}) {
  console.log(`\n$ ${command} ${args.join(" ")}`);
  return spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...env, ...extraEnv } }).status ?? 1;
}

function readJson(file: string): unknown {
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
}

const buildStatus = run("npm", ["run", "--silent", "build"]);
if (buildStatus !== 0) {
  console.log("build failed: counted as one failed test");
  totals.failed += 1;
}

const vitestReport = path.join(reports, "vitest.json");
// Two workers on this two-core machine (Vitest's default is one fewer than the cores): most integration time is
// spent waiting on an app, PostgreSQL or a timer, so two files at once finish the suite sooner.
const vitestStatus = run("npx", [
  "vitest",
  "run",
  "--maxWorkers=2",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${vitestReport}`,
]);
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

const playwrightReport = path.join(reports, "playwright.json");
type PlaywrightReport = { stats: { expected: number; unexpected: number; flaky: number; skipped: number } };
if (buildStatus === 0) {
  const status = run("npx", ["playwright", "test", "--reporter=list,json"], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
  });
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
