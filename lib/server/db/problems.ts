import type { State } from "@/lib/contract";
import type { ProblemGroupRow } from "@/lib/problems/assemble";
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

type GroupRow = {
  server_name: string | null;
  tool: string | null;
  state: string;
  reason: string | null;
  bucket: bigint | null;
  n: number;
  sessions: number;
  first_seen: Date;
  last_seen: Date;
  last_written: Date;
};

/** States that need nobody: they make no problem. */
const QUIET_STATES = ["healthy", "working"];

/**
 * Chains last observed since the window's start that need a person, grouped by (server, tool, state, deciding
 * reason): each group's totals, and its counts per bucket (grouping sets: one pass over the window's range of
 * the chains_problems index).
 */
export async function groupProblemChains(query: ProblemGroupQuery): Promise<ProblemGroupRow[]> {
  const filters = [
    query.state ? Prisma.sql`and c.state = ${query.state}` : Prisma.empty,
    query.server ? Prisma.sql`and c.server_name = ${query.server}` : Prisma.empty,
    query.tool ? Prisma.sql`and c.tool = ${query.tool}` : Prisma.empty,
  ];
  const rows = await getPrisma().$queryRaw<GroupRow[]>`
    select c.server_name, c.tool, c.state, c.reasons[1] as reason,
      (extract(epoch from date_bin(make_interval(secs => ${query.bucketMs / 1000}), c.observed_at,
        'epoch'::timestamptz)) * 1000)::bigint as bucket,
      count(*)::int as n, count(distinct c.session_id)::int as sessions,
      min(c.observed_at) as first_seen, max(c.observed_at) as last_seen, max(c.updated_at) as last_written
    from chains c
    where c.observed_at >= ${query.since} and c.state <> all(${QUIET_STATES}::text[])
      ${Prisma.join(filters, " ")}
    group by grouping sets ((c.server_name, c.tool, c.state, c.reasons[1]),
      (c.server_name, c.tool, c.state, c.reasons[1], 5))`;
  return rows.map((row) => ({
    server: row.server_name,
    tool: row.tool,
    state: row.state as State,
    reason: row.reason,
    bucketStartMs: row.bucket === null ? null : Number(row.bucket),
    count: row.n,
    sessions: row.sessions,
    firstSeenMs: row.first_seen.getTime(),
    lastSeenMs: row.last_seen.getTime(),
    lastWrittenMs: row.last_written.getTime(),
  }));
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
