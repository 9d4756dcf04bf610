import { problemKey } from "./problem-key";
import { matchesStatus, problemStatus } from "./status";
import type {
  Problem,
  ProblemResolution,
  ProblemSort,
  ProblemStatusFilter,
  ProblemTuple,
  ProblemWindow,
} from "./types";
import { bucketIndex, PROBLEM_WINDOW_SPEC } from "./windows";

/**
 * One row of the grouping read: a problem's totals when `bucketStartMs` is null, else its chains in the bucket
 * starting then (a chain observed after the window's end counts in the last bucket).
 */
export type ProblemGroupRow = ProblemTuple & {
  bucketStartMs: number | null;
  count: number;
  sessions: number;
  firstSeenMs: number;
  lastSeenMs: number;
  lastWrittenMs: number;
};

export type AssembleOptions = {
  window: ProblemWindow;
  sinceMs: number;
  status: ProblemStatusFilter;
  text?: string;
  sort: ProblemSort;
  limit: number;
};

/** Grouping rows and stored resolutions → the page of problems: keyed, with trend and status, filtered, sorted. */
export function assembleProblems(
  rows: readonly ProblemGroupRow[],
  resolutions: ReadonlyMap<string, ProblemResolution>,
  options: AssembleOptions,
): { problems: Problem[]; truncated: boolean } {
  const { buckets } = PROBLEM_WINDOW_SPEC[options.window];
  const byKey = new Map<string, { problem: Problem; lastWrittenMs: number }>();
  const trendRows: { key: string; row: ProblemGroupRow }[] = [];
  for (const row of rows) {
    const tuple = { server: row.server, tool: row.tool, state: row.state, reason: row.reason };
    const key = problemKey(tuple);
    if (row.bucketStartMs !== null) {
      trendRows.push({ key, row });
      continue;
    }
    byKey.set(key, {
      lastWrittenMs: row.lastWrittenMs,
      problem: {
        ...tuple,
        key,
        count: row.count,
        sessions: row.sessions,
        firstSeen: new Date(row.firstSeenMs).toISOString(),
        lastSeen: new Date(row.lastSeenMs).toISOString(),
        trend: new Array<number>(buckets).fill(0),
        status: "open",
        resolution: null,
      },
    });
  }
  for (const { key, row } of trendRows) {
    const trend = byKey.get(key)?.problem.trend;
    if (!trend) continue;
    const index = bucketIndex(row.bucketStartMs ?? options.sinceMs, options.sinceMs, options.window);
    trend[index] = (trend[index] ?? 0) + row.count;
  }
  const needle = options.text?.trim().toLowerCase() ?? "";
  const problems: Problem[] = [];
  for (const { problem, lastWrittenMs } of byKey.values()) {
    problem.resolution = resolutions.get(problem.key) ?? null;
    problem.status = problemStatus(lastWrittenMs, problem.resolution);
    if (!matchesStatus(problem.status, options.status)) continue;
    if (needle && !matchesText(problem, needle)) continue;
    problems.push(problem);
  }
  problems.sort(options.sort === "count" ? byCount : byLastSeen);
  return { problems: problems.slice(0, options.limit), truncated: problems.length > options.limit };
}

function matchesText(problem: Problem, needle: string): boolean {
  return [problem.server, problem.tool, problem.state, problem.reason].some((field) =>
    field?.toLowerCase().includes(needle),
  );
}

const byLastSeen = (a: Problem, b: Problem) =>
  b.lastSeen.localeCompare(a.lastSeen) || b.count - a.count || a.key.localeCompare(b.key);
const byCount = (a: Problem, b: Problem) =>
  b.count - a.count || b.lastSeen.localeCompare(a.lastSeen) || a.key.localeCompare(b.key);
