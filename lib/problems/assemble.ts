import type { AssigneeView } from "@/lib/dashboard/api-types";
import { problemStatus } from "./status";
import type { Problem, ProblemResolution, ProblemTuple, ProblemWindow } from "./types";
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
  assignee?: AssigneeView | null;
};

/**
 * The page from ranked rows (already filtered, ordered and cut to `limit` + 1) and the trend rows of their
 * problems: the same problems, in the same order, as the tests' oracle, assembleProblems over the window's every row
 * (tests/support/problems-oracle.ts).
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
      assignee: row.assignee ?? null,
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
