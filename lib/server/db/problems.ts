import type { ProblemSessionsRow } from "@/lib/problems/assemble";
import { PROBLEM_SESSION_SAMPLE, type ProblemResolution, type ProblemTuple } from "@/lib/problems/types";
import { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

const SESSION_READS = 2;

/**
 * Distinct sessions of each problem's chains in the window, counted among its newest PROBLEM_SESSION_SAMPLE chains
 * (`capped` when its `count`, from the rollups, is more): sessions span buckets, so they cannot be summed from the rollups. One index-only
 * range of `chains_problem_sessions_idx` a problem, for the problems on the page only. In the order given.
 */
export async function countProblemSessions(
  problems: readonly (ProblemTuple & { count: number })[],
  since: Date,
): Promise<ProblemSessionsRow[]> {
  if (problems.length === 0) return [];
  // A union of one subquery a problem took longer to plan than to run, so the problems go as arrays, each walked by a
  // lateral subquery, its sessions grouped by hash (`count(distinct …)` sorts them, which cost more than the walk).
  // A missing server, tool or reason must be matched by `is null` for the index to serve it: one lateral read for
  // each pattern of missing columns on the page (usually one or two). The newest chains are ordered by the index's
  // whole key: the planner does not take `is null` as fixing a column, so ordered by time alone it read every entry
  // of a problem without a tool and sorted them (25 k entries, 26 ms a problem at 10 M chains, against 0.2 ms). The
  // page is split in SESSION_READS statements, alternating problems, on as many connections at once: each problem is
  // a walk of up to PROBLEM_SESSION_SAMPLE index entries.
  const statements = Array.from({ length: SESSION_READS }, (_, part) => {
    const byPattern = new Map<string, number[]>();
    for (let index = part; index < problems.length; index += SESSION_READS) {
      const problem = problems[index] as ProblemTuple;
      const pattern = [problem.server, problem.tool, problem.reason]
        .map((v) => (v === null ? "0" : "1"))
        .join("");
      byPattern.set(pattern, [...(byPattern.get(pattern) ?? []), index]);
    }
    return [...byPattern.values()].map((indexes) => sessionsRead(indexes, problems, since));
  }).filter((reads) => reads.length > 0);
  const rows = (
    await Promise.all(
      statements.map(
        (reads) =>
          getPrisma().$queryRaw<{ problem: number; sessions: number }[]>`
          ${Prisma.join(reads, " union all ")}`,
      ),
    )
  ).flat();
  const byIndex = new Map(rows.map((row) => [row.problem, row]));
  return problems.map((problem, index) => {
    const row = byIndex.get(index);
    const { count: _, ...tuple } = problem;
    return { ...tuple, sessions: row?.sessions ?? 0, capped: problem.count > PROBLEM_SESSION_SAMPLE };
  });
}

/** The sessions of the problems at `indexes`, which have the same columns missing. */
function sessionsRead(indexes: number[], problems: readonly ProblemTuple[], since: Date): Prisma.Sql {
  const first = problems[indexes[0] as number] as ProblemTuple;
  const values = (pick: (problem: ProblemTuple) => string | null) =>
    indexes.map((index) => pick(problems[index] as ProblemTuple) ?? "");
  const equals = (chainColumn: string, problemColumn: string, missing: boolean) =>
    Prisma.raw(missing ? `${chainColumn} is null` : `${chainColumn} = p.${problemColumn}`);
  return Prisma.sql`select p.problem, s.sessions
    from unnest(${indexes}::int[], ${values((p) => p.state)}::text[], ${values((p) => p.server)}::text[],
      ${values((p) => p.tool)}::text[], ${values((p) => p.reason)}::text[]) as p(problem, state, server_name, tool, reason)
    cross join lateral (
      select count(*)::int as sessions
      from (select newest.session_id
        from (select c.session_id from chains c
          where c.state = p.state and c.state not in ('healthy', 'working')
            and ${equals("c.server_name", "server_name", first.server === null)}
            and ${equals("c.tool", "tool", first.tool === null)}
            and ${equals("c.reasons[1]", "reason", first.reason === null)} and c.observed_at >= ${since}
          order by c.state, c.server_name, c.tool, c.reasons[1], c.observed_at desc
          limit ${PROBLEM_SESSION_SAMPLE}) newest
        group by newest.session_id) by_session
    ) s`;
}

/** The stored resolutions of these problems, by key. */
/** The columns that name a problem in the tables keyed by it (resolutions, assignments). */
export function problemKeyColumns(key: string, tuple: ProblemTuple) {
  return { key, serverName: tuple.server, tool: tuple.tool, state: tuple.state, reason: tuple.reason };
}

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
    create: { ...problemKeyColumns(key, tuple), ...fields },
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
