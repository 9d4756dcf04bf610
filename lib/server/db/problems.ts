import type { State } from "@/lib/contract";
import type { ProblemBucketRow, ProblemSessionsRow } from "@/lib/problems/assemble";
import type { ProblemResolution, ProblemTuple } from "@/lib/problems/types";
import { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

export type ProblemGroupQuery = {
  since: Date;
  bucketMs: number;
  state?: State;
  server?: string;
  tool?: string;
};

type TupleRow = { server_name: string | null; tool: string | null; state: string; reason: string | null };
type BucketRow = TupleRow & {
  bucket: bigint;
  n: number;
  first_seen: Date;
  last_seen: Date;
  last_written: Date;
};

// Prisma's 5 s default would turn a slow read (a 30-day window over fine-grained rollup rows) into a 500.
const PROBLEMS_TRANSACTION = { timeout: 60_000 };

/** Distinct sessions are counted among each problem's newest this many chains of the window, no further. */
export const PROBLEM_SESSION_SAMPLE = 1000;

const DAY_MS = 86_400_000;

/** Buckets of whole days from a day's start are read from the day rollup, any other from the hour rollup. */
const rowsOf = (query: ProblemGroupQuery) =>
  query.bucketMs % DAY_MS === 0 && query.since.getTime() % DAY_MS === 0
    ? "chain_rollup_day_rows"
    : "chain_rollup_rows";

/**
 * Chains last observed since the window's start (a whole hour: windows are whole buckets of an hour or more) that
 * need a person (neither healthy nor working), grouped by (server, tool, state, deciding reason): counts per bucket,
 * first and last observed and last written, from the rollups' whole days (day buckets) or hours, with their unfolded
 * deltas. First seen is the earliest observedAt counted into a rollup row still holding chains (a chain that left it
 * since may have set it); last written only ever grows, so a chain written after a resolution keeps the problem
 * regressed.
 */
export async function groupProblemChains(query: ProblemGroupQuery): Promise<ProblemBucketRow[]> {
  const rows = await getPrisma().$transaction(async (tx) => {
    // Memory for the hash aggregate: with the default 4 MB the planner sorts the window's rows on disk instead.
    await tx.$executeRaw`set local work_mem = '32MB'`;
    return tx.$queryRaw<BucketRow[]>`
    select nullif(r.server_name, '') as server_name, nullif(r.tool, '') as tool, r.state,
      nullif(r.reason, '') as reason,
      (extract(epoch from date_bin(make_interval(secs => ${query.bucketMs / 1000}), r.bucket,
        'epoch'::timestamptz)) * 1000)::bigint as bucket,
      sum(r.chains)::int as n, min(r.first_observed_at) filter (where r.chains > 0) as first_seen,
      max(r.last_observed_at) filter (where r.chains > 0) as last_seen,
      max(r.last_written_at) as last_written
    from ${Prisma.raw(rowsOf(query))} r
    where r.bucket >= ${query.since} and r.state not in ('healthy', 'working')
      ${query.state ? Prisma.sql`and r.state = ${query.state}` : Prisma.empty}
      ${query.server ? Prisma.sql`and r.server_name = ${query.server}` : Prisma.empty}
      ${query.tool ? Prisma.sql`and r.tool = ${query.tool}` : Prisma.empty}
    group by 1, 2, 3, 4, 5
    having sum(r.chains) > 0`;
  }, PROBLEMS_TRANSACTION);
  return rows.map((row) => ({
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
}

/**
 * Distinct sessions of each problem's chains in the window, counted among its newest PROBLEM_SESSION_SAMPLE chains
 * (`capped` when it has more): sessions span buckets, so they cannot be summed from the rollups. One index-only
 * range of `chains_problem_sessions_idx` a problem, for the problems on the page only. In the order given.
 */
export async function countProblemSessions(
  problems: readonly ProblemTuple[],
  since: Date,
): Promise<ProblemSessionsRow[]> {
  if (problems.length === 0) return [];
  const equals = (column: string, value: string | null) =>
    value === null ? Prisma.sql`${Prisma.raw(column)} is null` : Prisma.sql`${Prisma.raw(column)} = ${value}`;
  const ranges = problems.map(
    (
      problem,
      index,
    ) => Prisma.sql`select ${index}::int as problem, count(distinct s.session_id)::int as sessions,
      count(*)::int as chains
      from (select c.session_id from chains c
        where c.state = ${problem.state} and c.state not in ('healthy', 'working')
          and ${equals("c.server_name", problem.server)} and ${equals("c.tool", problem.tool)}
          and ${equals("c.reasons[1]", problem.reason)} and c.observed_at >= ${since}
        order by c.observed_at desc limit ${PROBLEM_SESSION_SAMPLE + 1}) s`,
  );
  const rows = await getPrisma().$queryRaw<{ problem: number; sessions: number; chains: number }[]>`
    ${Prisma.join(ranges, " union all ")}`;
  const byIndex = new Map(rows.map((row) => [row.problem, row]));
  return problems.map((problem, index) => {
    const row = byIndex.get(index);
    return { ...problem, sessions: row?.sessions ?? 0, capped: (row?.chains ?? 0) > PROBLEM_SESSION_SAMPLE };
  });
}

/** The stored resolutions of these problems, by key. */
export async function readProblemResolutions(keys: string[]): Promise<Map<string, ProblemResolution>> {
  if (keys.length === 0) return new Map();
  const rows = await getPrisma().problemResolution.findMany({ where: { key: { in: keys } } });
  return new Map(
    rows.map((row) => [row.key, { resolvedAt: row.resolvedAt.toISOString(), resolvedBy: row.resolvedBy }]),
  );
}

/** Marks the problem resolved at `at` by `actor`, replacing an earlier resolution. */
export async function saveProblemResolution(
  key: string,
  tuple: ProblemTuple,
  at: Date,
  actor: string,
  db: Prisma.TransactionClient = getPrisma(),
): Promise<ProblemResolution> {
  const fields = { resolvedAt: at, resolvedBy: actor };
  const row = await db.problemResolution.upsert({
    where: { key },
    create: {
      key,
      serverName: tuple.server,
      tool: tuple.tool,
      state: tuple.state,
      reason: tuple.reason,
      ...fields,
    },
    update: fields,
  });
  return { resolvedAt: row.resolvedAt.toISOString(), resolvedBy: row.resolvedBy };
}

/** Forgets the problem's resolution (reopen); returns the one forgotten, null when there was none. */
export async function deleteProblemResolution(
  key: string,
  db: Prisma.TransactionClient = getPrisma(),
): Promise<ProblemResolution | null> {
  const [row] = await db.$queryRaw<{ resolvedAt: Date; resolvedBy: string }[]>`
    delete from problem_resolutions where key = ${key}
      returning resolved_at as "resolvedAt", resolved_by as "resolvedBy"`;
  return row ? { resolvedAt: row.resolvedAt.toISOString(), resolvedBy: row.resolvedBy } : null;
}
