import type { ProblemSessionsRow } from "@/lib/problems/assemble";
import type { ProblemResolution, ProblemTuple } from "@/lib/problems/types";
import { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

/** Distinct sessions are counted among each problem's newest this many chains of the window, no further. */
export const PROBLEM_SESSION_SAMPLE = 1000;

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
