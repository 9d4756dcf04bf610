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

/**
 * Chains last observed since the window's start that need a person (neither healthy nor working), grouped by
 * (server, tool, state, deciding reason): counts per bucket, and distinct sessions per group. The state test is
 * written out (not a parameter) so a partial index on it could serve it. One transaction, for `work_mem`.
 */
export async function groupProblemChains(
  query: ProblemGroupQuery,
): Promise<{ buckets: ProblemBucketRow[]; sessions: ProblemSessionsRow[] }> {
  const where = Prisma.sql`where c.observed_at >= ${query.since} and c.state not in ('healthy', 'working')
    ${query.state ? Prisma.sql`and c.state = ${query.state}` : Prisma.empty}
    ${query.server ? Prisma.sql`and c.server_name = ${query.server}` : Prisma.empty}
    ${query.tool ? Prisma.sql`and c.tool = ${query.tool}` : Prisma.empty}`;
  const [buckets, sessions] = await getPrisma().$transaction(async (tx) => {
    // Memory for the hash aggregates: with the default 4 MB the planner sorts the window's rows on disk instead.
    await tx.$executeRaw`set local work_mem = '32MB'`;
    const bucketRows = await tx.$queryRaw<BucketRow[]>`
      select b.server_name, b.tool, b.state, b.reason, (extract(epoch from b.start) * 1000)::bigint as bucket,
        b.n, b.first_seen, b.last_seen, b.last_written
      from (
        select c.server_name, c.tool, c.state, c.reasons[1] as reason,
          date_bin(make_interval(secs => ${query.bucketMs / 1000}), c.observed_at, 'epoch'::timestamptz) as start,
          count(*)::int as n, min(c.observed_at) as first_seen, max(c.observed_at) as last_seen,
          max(c.updated_at) as last_written
        from chains c ${where}
        group by 1, 2, 3, 4, 5
      ) b`;
    const sessionRows = await tx.$queryRaw<(TupleRow & { sessions: number })[]>`
      select d.server_name, d.tool, d.state, d.reason, count(*)::int as sessions
      from (select distinct c.server_name, c.tool, c.state, c.reasons[1] as reason, c.session_id
        from chains c ${where}) d
      group by 1, 2, 3, 4`;
    return [bucketRows, sessionRows] as const;
  });
  const tuple = (row: TupleRow) => ({
    server: row.server_name,
    tool: row.tool,
    state: row.state as State,
    reason: row.reason,
  });
  return {
    buckets: buckets.map((row) => ({
      ...tuple(row),
      bucketStartMs: Number(row.bucket),
      count: row.n,
      firstSeenMs: row.first_seen.getTime(),
      lastSeenMs: row.last_seen.getTime(),
      lastWrittenMs: row.last_written.getTime(),
    })),
    sessions: sessions.map((row) => ({ ...tuple(row), sessions: row.sessions })),
  };
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
): Promise<ProblemResolution> {
  const fields = { resolvedAt: at, resolvedBy: actor };
  const row = await getPrisma().problemResolution.upsert({
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

/** Forgets the problem's resolution (reopen); nothing happens when there is none. */
export async function deleteProblemResolution(key: string): Promise<void> {
  await getPrisma().problemResolution.deleteMany({ where: { key } });
}
