import { assembleRankedProblems, setSessions } from "@/lib/problems/assemble";
import { PROBLEM_KEY_PATTERN } from "@/lib/problems/problem-key";
import type { LifecycleOutcome } from "@/lib/problems/lifecycle";
import type { Problem, ProblemResolutionResult, ProblemsPage } from "@/lib/problems/types";
import { PROBLEM_WINDOW_SPEC, problemWindowStart } from "@/lib/problems/windows";
import type { AuditActor } from "../audit/audit-actor";
import { appendAuditEvent } from "../db/audit-events";
import { getPrisma } from "../db/client";
import { rankProblems, readProblemTrends } from "../db/problem-ranking";
import { countProblemSessions, deleteProblemResolution, readProblemResolutions } from "../db/problems";
import { notFound } from "../http/api-error";
import { resolveProblems } from "./lifecycle-service";
import type { ProblemsQuery } from "../reading/problems-query";

export type ProblemResolveAnswer = ProblemResolutionResult & LifecycleOutcome;

/**
 * The problems of a window: ranked, filtered and cut to the page in SQL, then the trend and distinct sessions of the
 * page's problems only.
 */
export async function listProblems(
  query: ProblemsQuery,
  assigneeUserId?: string,
  now = new Date(),
): Promise<ProblemsPage> {
  const since = problemWindowStart(query.window, now.getTime());
  const { bucketMs } = PROBLEM_WINDOW_SPEC[query.window];
  const ranked = await rankProblems({
    since,
    state: query.state,
    server: query.server,
    tool: query.tool,
    needle: query.text?.trim().toLowerCase() || undefined,
    status: query.status,
    sort: query.sort,
    limit: query.limit,
    assigneeUserId,
  });
  const onPage = ranked.slice(0, query.limit);
  // Independent reads of the page's problems: on two connections at once.
  const [trends, counted] = await Promise.all([
    readProblemTrends(onPage, since, bucketMs),
    countProblemSessions(onPage, since),
  ]);
  const { problems, truncated } = assembleRankedProblems(ranked, trends, {
    window: query.window,
    sinceMs: since.getTime(),
    limit: query.limit,
  });
  for (const [index, row] of counted.entries()) {
    const problem = problems[index];
    if (problem) setSessions(problem, row);
  }
  return { window: query.window, since: since.toISOString(), bucketMs, problems, truncated };
}

/**
 * Marks a problem resolved and, with `cascade`, what hangs below it (lifecycle-service.ts). Resolving a resolved
 * problem changes nothing (the first resolution stands); a regressed one is resolved again from now. The problem
 * must have chains in the longest window, or a stored resolution or assignee; any other key is 404.
 */
export async function resolveProblem(
  key: string,
  options: { cascade: boolean },
  actor: AuditActor,
  now = new Date(),
): Promise<ProblemResolveAnswer> {
  const { problems, ...outcome } = await resolveProblems(
    [key],
    { cascade: options.cascade, keysPath: () => "$.path.key" },
    actor,
    now,
  );
  return { ...(problems[0] as ProblemResolutionResult), ...outcome };
}

/** Reopens a problem: its resolution is forgotten. Reopening an open problem changes nothing (and is not audited). */
export async function reopenProblem(
  key: string,
  actor: AuditActor,
  now = new Date(),
): Promise<ProblemResolutionResult> {
  const problem = await findProblem(key, now);
  if (!problem && !(await readProblemResolutions([key])).has(key)) throw notFound("problem");
  await getPrisma().$transaction(async (tx) => {
    const forgotten = await deleteProblemResolution(key, tx);
    if (forgotten)
      await appendAuditEvent(tx, {
        ...actor,
        action: "problem.reopen",
        targetType: "problem",
        targetId: key,
        before: { status: problem?.status ?? "resolved", resolution: forgotten },
        after: { status: "open", resolution: null },
      });
  });
  return { key, status: "open", resolution: null };
}

/** The problem with this key among the longest window's, with its status (no trend, no sessions); null when none. */
async function findProblem(key: string, now: Date): Promise<Problem | null> {
  if (!PROBLEM_KEY_PATTERN.test(key)) return null;
  const since = problemWindowStart("30d", now.getTime());
  const ranked = await rankProblems({ since, status: "all", sort: "last_seen", limit: 1, keys: [key] });
  return (
    assembleRankedProblems(ranked, [], { window: "30d", sinceMs: since.getTime(), limit: 1 }).problems[0] ??
    null
  );
}
