import type { State } from "@/lib/contract";
import type { ProblemBucketRow, RankedProblemRow } from "@/lib/problems/assemble";
import type { ProblemSort, ProblemStatusFilter, ProblemTuple } from "@/lib/problems/types";
import { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

export type ProblemRankQuery = {
  since: Date;
  state?: State;
  server?: string;
  tool?: string;
  /** Already trimmed and lower-cased; matched as a substring of server, tool, state or reason. */
  needle?: string;
  status: ProblemStatusFilter;
  sort: ProblemSort;
  limit: number;
  /** Only the problems with these keys (a resolve or reopen looks its problems up). */
  keys?: readonly string[];
  /** Only the problems assigned to this user. */
  assigneeUserId?: string;
};

const DAY_MS = 86_400_000;

// The key lib/problems/problem-key.ts makes (sha256 of the tuple as JSON.stringify writes it, 32 hex digits), made in
// SQL so resolutions join and ties order by it: to_json escapes a string as JSON.stringify does, '' is no value.
const jsonOf = (column: string) => `coalesce(to_json(nullif(${column}, ''))::text, 'null')`;
/** The key of the rollup tuple (server_name, tool, state, reason) of `alias`. */
export const problemKeySql = (
  alias: string,
) => `left(encode(sha256(convert_to('[' || ${jsonOf(`${alias}.server_name`)}
  || ',' || ${jsonOf(`${alias}.tool`)} || ',' || to_json(${alias}.state)::text || ',' || ${jsonOf(`${alias}.reason`)}
  || ']', 'UTF8')), 'hex'), 32)`;

const dimensionFilters = (query: ProblemRankQuery) => Prisma.sql`
  ${query.state ? Prisma.sql`and r.state = ${query.state}` : Prisma.empty}
  ${query.server ? Prisma.sql`and r.server_name = ${query.server}` : Prisma.empty}
  ${query.tool ? Prisma.sql`and r.tool = ${query.tool}` : Prisma.empty}`;

const matchesNeedle = (needle: string) => Prisma.sql`and (strpos(lower(t.server_name), ${needle}) > 0
  or strpos(lower(t.tool), ${needle}) > 0 or strpos(lower(t.state), ${needle}) > 0
  or strpos(lower(t.reason), ${needle}) > 0)`;

const statusIs = (status: ProblemStatusFilter) => {
  const resolved = Prisma.sql`(p.key is not null and not coalesce(t.last_written > p.resolved_at, false))`;
  if (status === "all") return Prisma.empty;
  return status === "resolved" ? Prisma.sql`and ${resolved}` : Prisma.sql`and not ${resolved}`;
};

type RankRow = {
  key: string;
  server_name: string;
  tool: string;
  state: string;
  reason: string;
  n: number;
  first_seen: Date;
  last_seen: Date;
  last_written: Date;
  resolved_at: Date | null;
  resolved_by: string | null;
  assignee_id: string | null;
  assignee_username: string | null;
  assignee_display_name: string | null;
};

/**
 * The window's problems ranked in SQL, up to `limit + 1` (one more tells the page is truncated): each tuple's chains,
 * first and last observed and last written over the window, from the problem rollups' whole days and the hours
 * before the first whole day (with their unfolded deltas), joined to its stored resolution, filtered by status and
 * text, in the page's order. Status: resolved until a chain of the tuple is written after the resolution
 * (lib/problems/status.ts). First and last observed come from rollup rows still holding chains.
 */
export async function rankProblems(query: ProblemRankQuery): Promise<RankedProblemRow[]> {
  const dayFrom = new Date(Math.ceil(query.since.getTime() / DAY_MS) * DAY_MS);
  const order =
    query.sort === "count"
      ? Prisma.sql`t.n desc, t.last_seen desc nulls last`
      : Prisma.sql`t.last_seen desc nulls last, t.n desc`;
  // The key (a hash per tuple) is made for the page's rows and their ties only, or for the one asked for: the
  // resolutions join on the tuple they store.
  const rows = await getPrisma().$queryRaw<RankRow[]>`
    with window_rows as (
      select r.server_name, r.tool, r.state, r.reason, r.chains, r.first_observed_at, r.last_observed_at,
        r.last_written_at
      from problem_rollup_rows r
      where r.bucket >= ${query.since} and r.bucket < ${dayFrom} ${dimensionFilters(query)}
      union all
      select r.server_name, r.tool, r.state, r.reason, r.chains, r.first_observed_at, r.last_observed_at,
        r.last_written_at
      from problem_rollup_day_rows r
      where r.bucket >= ${dayFrom} ${dimensionFilters(query)}
    ), tuples as (
      select server_name, tool, state, reason, sum(chains)::int as n,
        min(first_observed_at) filter (where chains > 0) as first_seen,
        max(last_observed_at) filter (where chains > 0) as last_seen, max(last_written_at) as last_written
      from window_rows group by 1, 2, 3, 4 having sum(chains) > 0
    ), page as (
      select t.*, p.key as resolved_key, p.resolved_at, p.resolved_by, u.id::text as assignee_id,
        u.username as assignee_username, u.display_name as assignee_display_name
      from tuples t left join problem_resolutions p on coalesce(p.server_name, '') = t.server_name
        and coalesce(p.tool, '') = t.tool and p.state = t.state and coalesce(p.reason, '') = t.reason
      left join problem_assignments pa on coalesce(pa.server_name, '') = t.server_name
        and coalesce(pa.tool, '') = t.tool and pa.state = t.state and coalesce(pa.reason, '') = t.reason
      left join users u on u.id = pa.assignee_user_id
      where true ${statusIs(query.status)} ${query.needle ? matchesNeedle(query.needle) : Prisma.empty}
        ${query.keys ? Prisma.sql`and ${Prisma.raw(problemKeySql("t"))} = any(${[...query.keys]}::text[])` : Prisma.empty}
        ${query.assigneeUserId ? Prisma.sql`and pa.assignee_user_id = ${query.assigneeUserId}::uuid` : Prisma.empty}
      order by ${order} fetch first ${query.limit + 1} rows with ties
    )
    select * from (select ${Prisma.raw(problemKeySql("t"))} as key, t.* from page t) t
    order by ${order}, t.key collate "C"
    limit ${query.limit + 1}`;
  return rows.map((row) => ({
    key: row.key,
    server: row.server_name || null,
    tool: row.tool || null,
    state: row.state as State,
    reason: row.reason || null,
    count: row.n,
    firstSeenMs: row.first_seen.getTime(),
    lastSeenMs: row.last_seen.getTime(),
    lastWrittenMs: row.last_written.getTime(),
    resolution:
      row.resolved_at && row.resolved_by !== null
        ? { resolvedAt: row.resolved_at.toISOString(), resolvedBy: row.resolved_by }
        : null,
    assignee:
      row.assignee_id && row.assignee_username
        ? { id: row.assignee_id, username: row.assignee_username, displayName: row.assignee_display_name }
        : null,
  }));
}

/**
 * The trend of these problems only: chains per bucket of `bucketMs` since `since`, from the day rollup for whole-day
 * buckets from a day's start, else the hour rollup; one index range per problem.
 */
export async function readProblemTrends(
  problems: readonly ProblemTuple[],
  since: Date,
  bucketMs: number,
): Promise<Pick<ProblemBucketRow, "server" | "tool" | "state" | "reason" | "bucketStartMs" | "count">[]> {
  if (problems.length === 0) return [];
  const view =
    bucketMs % DAY_MS === 0 && since.getTime() % DAY_MS === 0
      ? "problem_rollup_day_rows"
      : "problem_rollup_rows";
  const column = (pick: (problem: ProblemTuple) => string | null) => problems.map((p) => pick(p) ?? "");
  // Grouped by the problem's place in the arrays and a timestamp: grouping by the four text columns sorted every
  // rollup row by them (collation-aware comparisons), which cost more than reading the rows.
  const rows = await getPrisma().$queryRaw<{ problem: bigint; bucket: Date; n: number }[]>`
    select p.problem, date_bin(make_interval(secs => ${bucketMs / 1000}), r.bucket, 'epoch'::timestamptz) as bucket,
      sum(r.chains)::int as n
    from unnest(${column((p) => p.server)}::text[], ${column((p) => p.tool)}::text[],
      ${column((p) => p.state)}::text[], ${column((p) => p.reason)}::text[])
      with ordinality as p(server_name, tool, state, reason, problem)
    join ${Prisma.raw(view)} r using (server_name, tool, state, reason)
    where r.bucket >= ${since}
    group by 1, 2 having sum(r.chains) > 0`;
  return rows.map((row) => {
    const problem = problems[Number(row.problem) - 1] as ProblemTuple;
    return {
      server: problem.server,
      tool: problem.tool,
      state: problem.state,
      reason: problem.reason,
      bucketStartMs: row.bucket.getTime(),
      count: row.n,
    };
  });
}
