// The time report `npm test` prints before its closing line: the slowest files and tests over Vitest and Playwright,
// read from their JSON reports, so a regression in the loop's length shows where it came from.
import path from "node:path";
import type { FileTime } from "./vitest-file-times";

export type Timed = { seconds: number; suite: string; file: string; title?: string };

type PlaywrightSuite = {
  file?: string;
  specs?: { file?: string; title: string; tests: { results: { duration: number }[] }[] }[];
  suites?: PlaywrightSuite[];
};

type VitestReport = {
  testResults?: {
    name: string;
    assertionResults?: { fullName?: string; title?: string; duration?: number | null }[];
  }[];
};

/** Vitest's files from the file-times reporter (whole file times), its tests from the JSON report. */
export function vitestTimings(
  report: VitestReport | null,
  fileTimes: FileTime[] | null,
  root: string,
): { files: Timed[]; tests: Timed[] } {
  const projectOf = new Map<string, string>();
  const files: Timed[] = (fileTimes ?? []).map((time) => {
    projectOf.set(time.file, time.project);
    return { seconds: time.seconds, suite: time.project, file: time.file };
  });
  const tests: Timed[] = [];
  for (const result of report?.testResults ?? []) {
    const file = path.relative(root, result.name);
    const suite = projectOf.get(file) ?? "vitest";
    for (const test of result.assertionResults ?? [])
      tests.push({ seconds: (test.duration ?? 0) / 1000, suite, file, title: test.fullName ?? test.title });
  }
  return { files, tests };
}

export function playwrightTimings(report: { suites?: PlaywrightSuite[] } | null): {
  files: Timed[];
  tests: Timed[];
} {
  const tests: Timed[] = [];
  const walk = (suite: PlaywrightSuite) => {
    for (const spec of suite.specs ?? []) {
      const seconds = spec.tests.flatMap((t) => t.results).reduce((sum, r) => sum + r.duration, 0) / 1000;
      tests.push({ seconds, suite: "e2e", file: `tests/e2e/${spec.file ?? suite.file}`, title: spec.title });
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report?.suites ?? []) walk(suite);
  // A spec file's time is its tests' sum: Playwright runs a file's tests one after another in one worker.
  const byFile = new Map<string, number>();
  for (const test of tests) byFile.set(test.file, (byFile.get(test.file) ?? 0) + test.seconds);
  const files = [...byFile].map(([file, seconds]) => ({ seconds, suite: "e2e", file }));
  return { files, tests };
}

function slowest(rows: Timed[], count: number): Timed[] {
  return [...rows].sort((a, b) => b.seconds - a.seconds).slice(0, count);
}

/** The report's lines: per suite totals, then the slowest `count` files and the slowest `count` tests. */
export function timingReport(files: Timed[], tests: Timed[], count = 25): string[] {
  const lines: string[] = [];
  const bySuite = new Map<string, { seconds: number; files: number; tests: number }>();
  for (const file of files) {
    const entry = bySuite.get(file.suite) ?? { seconds: 0, files: 0, tests: 0 };
    entry.seconds += file.seconds;
    entry.files += 1;
    bySuite.set(file.suite, entry);
  }
  for (const test of tests) {
    const entry = bySuite.get(test.suite);
    if (entry) entry.tests += 1;
  }
  lines.push("time per suite (sum of its files' times; files of a suite run side by side):");
  for (const [suite, entry] of [...bySuite].sort((a, b) => b[1].seconds - a[1].seconds))
    lines.push(
      `  ${entry.seconds.toFixed(1).padStart(8)} s  ${suite} (${entry.files} files, ${entry.tests} tests)`,
    );
  lines.push(`slowest ${count} files:`);
  for (const file of slowest(files, count))
    lines.push(`  ${file.seconds.toFixed(1).padStart(8)} s  ${file.suite.padEnd(11)} ${file.file}`);
  lines.push(`slowest ${count} tests:`);
  for (const test of slowest(tests, count))
    lines.push(`  ${test.seconds.toFixed(1).padStart(8)} s  ${test.file} › ${test.title ?? ""}`);
  return lines;
}
