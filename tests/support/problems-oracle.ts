import type pg from "pg";
import type { State } from "@/lib/contract";
import { assembleProblems, type ProblemBucketRow } from "@/lib/problems/assemble";
import { problemKey } from "@/lib/problems/problem-key";
import type { Problem, ProblemResolution, ProblemsPage, ProblemWindow } from "@/lib/problems/types";

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
