import type pg from "pg";
import type { State } from "@/lib/contract";
import { type ProblemBucketRow, type ProblemSessionsRow, setSessions } from "@/lib/problems/assemble";
import { problemKey } from "@/lib/problems/problem-key";
import { problemStatus } from "@/lib/problems/status";
import type {
  Problem,
  ProblemResolution,
  ProblemSort,
  ProblemStatusFilter,
  ProblemStatus,
  ProblemsPage,
  ProblemWindow,
} from "@/lib/problems/types";
import { bucketIndex, PROBLEM_WINDOW_SPEC } from "@/lib/problems/windows";

// The tests' oracle for the problems page: the in-memory assembly the service ran before ranking moved to SQL
// (lib/server/db/problem-ranking.ts), kept here to check that ranking against, and over it the page counted straight
// from `chains`.

export type ProblemsOptions = Pick<ProblemsPage, "window" | "since"> & {
  status: "open" | "resolved" | "all";
  sort: "last_seen" | "count";
  text?: string;
  limit: number;
};

/**
 * The problems page as the service assembled it before ranking moved to SQL: every (tuple, bucket) of the window,
 * counted here straight from `chains`, with the stored resolutions, through the pure in-memory assembly.
 */
export async function problemsFromChains(client: pg.Client, options: ProblemsOptions, bucketMs: number) {
  const { rows } = await client.query(
    `select server_name, tool, state, reasons[1] as reason,
      (extract(epoch from date_bin(make_interval(secs => $2), observed_at, 'epoch'::timestamptz)) * 1000)::bigint
        as bucket,
      count(*)::int as n, min(observed_at) as first_seen, max(observed_at) as last_seen,
      max(updated_at) as last_written
    from chains where observed_at >= $1 and state not in ('healthy', 'working') group by 1, 2, 3, 4, 5`,
    [options.since, bucketMs / 1000],
  );
  const buckets: ProblemBucketRow[] = rows.map((row) => ({
    server: row.server_name,
    tool: row.tool,
    state: row.state as State,
    reason: row.reason,
    bucketStartMs: Number(row.bucket),
    count: row.n,
    firstSeenMs: row.first_seen.getTime(),
    lastSeenMs: row.last_seen.getTime(),
    lastWrittenMs: row.last_written.getTime(),
  }));
  const stored = await client.query("select key, resolved_at, resolved_by from problem_resolutions");
  const resolutions = new Map<string, ProblemResolution>(
    stored.rows.map((row) => [
      row.key,
      { resolvedAt: row.resolved_at.toISOString(), resolvedBy: row.resolved_by },
    ]),
  );
  return assembleProblems(buckets, [], resolutions, {
    ...options,
    window: options.window as ProblemWindow,
    sinceMs: Date.parse(options.since),
  });
}

/** What the SQL ranking must agree on with the in-memory assembly (sessions are counted apart, first seen may be earlier). */
export const comparable = (problem: Problem) => {
  const { sessions: _, sessionsCapped: __, firstSeen: ___, ...rest } = problem;
  return { ...rest, key: problemKey(problem) === problem.key ? problem.key : `mismatch:${problem.key}` };
};

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
          assignee: null,
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

/** Whether a problem shows under the status filter: open lists regressions too. */
export function matchesStatus(status: ProblemStatus, filter: "open" | "resolved" | "all"): boolean {
  if (filter === "all") return true;
  return filter === "resolved" ? status === "resolved" : status !== "resolved";
}
