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

/** One row of the grouping read: a problem's chains in the bucket starting at `bucketStartMs`. */
export type ProblemBucketRow = ProblemTuple & {
  bucketStartMs: number;
  count: number;
  firstSeenMs: number;
  lastSeenMs: number;
  lastWrittenMs: number;
};

/**
 * The distinct sessions of a problem's chains in the window (not a sum over buckets: a session spans them);
 * `capped` when they were counted among the problem's newest chains only, so there may be more.
 */
export type ProblemSessionsRow = ProblemTuple & { sessions: number; capped?: boolean };

export type AssembleOptions = {
  window: ProblemWindow;
  sinceMs: number;
  status: ProblemStatusFilter;
  text?: string;
  sort: ProblemSort;
  limit: number;
};

/**
 * Bucket rows, session counts and stored resolutions → the page of problems: keyed, totalled, with trend and
 * status, filtered, sorted. A chain observed outside the window's buckets counts in the nearest one.
 */
export function assembleProblems(
  rows: readonly ProblemBucketRow[],
  sessions: readonly ProblemSessionsRow[],
  resolutions: ReadonlyMap<string, ProblemResolution>,
  options: AssembleOptions,
): { problems: Problem[]; truncated: boolean } {
  const { buckets } = PROBLEM_WINDOW_SPEC[options.window];
  const byKey = new Map<
    string,
    { problem: Problem; firstMs: number; lastMs: number; lastWrittenMs: number }
  >();
  for (const row of rows) {
    const tuple = { server: row.server, tool: row.tool, state: row.state, reason: row.reason };
    const key = problemKey(tuple);
    let entry = byKey.get(key);
    if (!entry) {
      entry = {
        firstMs: row.firstSeenMs,
        lastMs: row.lastSeenMs,
        lastWrittenMs: row.lastWrittenMs,
        problem: {
          ...tuple,
          key,
          count: 0,
          sessions: 0,
          sessionsCapped: false,
          firstSeen: "",
          lastSeen: "",
          trend: new Array<number>(buckets).fill(0),
          status: "open",
          resolution: null,
        },
      };
      byKey.set(key, entry);
    }
    entry.problem.count += row.count;
    entry.firstMs = Math.min(entry.firstMs, row.firstSeenMs);
    entry.lastMs = Math.max(entry.lastMs, row.lastSeenMs);
    entry.lastWrittenMs = Math.max(entry.lastWrittenMs, row.lastWrittenMs);
    const index = bucketIndex(row.bucketStartMs, options.sinceMs, options.window);
    entry.problem.trend[index] = (entry.problem.trend[index] ?? 0) + row.count;
  }
  for (const row of sessions) {
    const entry = byKey.get(problemKey(row));
    if (entry) setSessions(entry.problem, row);
  }
  const needle = options.text?.trim().toLowerCase() ?? "";
  const problems: Problem[] = [];
  for (const { problem, firstMs, lastMs, lastWrittenMs } of byKey.values()) {
    problem.firstSeen = new Date(firstMs).toISOString();
    problem.lastSeen = new Date(lastMs).toISOString();
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

/** Puts a session count on its problem (the service counts them for the page's problems only, after assembly). */
export function setSessions(problem: Problem, row: ProblemSessionsRow): void {
  problem.sessions = row.sessions;
  problem.sessionsCapped = row.capped ?? false;
}

/** A problem ranked by the database: its window totals, key and stored resolution (no trend, no sessions yet). */
export type RankedProblemRow = ProblemTuple & {
  key: string;
  count: number;
  firstSeenMs: number;
  lastSeenMs: number;
  lastWrittenMs: number;
  resolution: ProblemResolution | null;
};

/**
 * The page from ranked rows (already filtered, ordered and cut to `limit` + 1) and the trend rows of their
 * problems: the same problems, in the same order, as assembleProblems over the window's every row.
 */
export function assembleRankedProblems(
  ranked: readonly RankedProblemRow[],
  trendRows: readonly Pick<ProblemBucketRow, keyof ProblemTuple | "bucketStartMs" | "count">[],
  options: { window: ProblemWindow; sinceMs: number; limit: number },
): { problems: Problem[]; truncated: boolean } {
  const { buckets } = PROBLEM_WINDOW_SPEC[options.window];
  const problems = ranked.slice(0, options.limit).map(
    (row): Problem => ({
      server: row.server,
      tool: row.tool,
      state: row.state,
      reason: row.reason,
      key: row.key,
      count: row.count,
      sessions: 0,
      sessionsCapped: false,
      firstSeen: new Date(row.firstSeenMs).toISOString(),
      lastSeen: new Date(row.lastSeenMs).toISOString(),
      trend: new Array<number>(buckets).fill(0),
      status: problemStatus(row.lastWrittenMs, row.resolution),
      resolution: row.resolution,
    }),
  );
  const byTuple = new Map(problems.map((problem) => [tupleId(problem), problem]));
  for (const row of trendRows) {
    const problem = byTuple.get(tupleId(row));
    if (!problem) continue;
    const index = bucketIndex(row.bucketStartMs, options.sinceMs, options.window);
    problem.trend[index] = (problem.trend[index] ?? 0) + row.count;
  }
  return { problems, truncated: ranked.length > options.limit };
}

const tupleId = (tuple: ProblemTuple) =>
  JSON.stringify([tuple.server, tuple.tool, tuple.state, tuple.reason]);
