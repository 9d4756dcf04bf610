import type { AssigneeView } from "@/lib/dashboard/api-types";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { ProblemResolution, ProblemTuple } from "@/lib/problems/types";
import type { State } from "@/lib/contract";
import { getPrisma } from "./client";
import { problemKeyColumns } from "./problems";

type Db = Prisma.TransactionClient | ReturnType<typeof getPrisma>;

/** Serialises the writers of these problems (resolve, undo, assign), in key order so two cannot deadlock. */
export async function lockProblemKeys(db: Prisma.TransactionClient, keys: readonly string[]): Promise<void> {
  const sorted = [...new Set(keys)].sort().map((key) => `problem:${key}`);
  if (sorted.length === 0) return;
  // unnest keeps the array's order: the locks are taken in it.
  await db.$queryRaw`select pg_advisory_xact_lock(hashtextextended(k, 0))::text from unnest(${sorted}::text[]) as k`;
}

/**
 * Problems known by a stored row (a resolution or an assignment) even when none of their chains is in the longest
 * window: their tuple, and their resolution if any.
 */
export async function readStoredProblems(
  keys: readonly string[],
  db: Db = getPrisma(),
): Promise<Map<string, { tuple: ProblemTuple; resolution: ProblemResolution | null }>> {
  if (keys.length === 0) return new Map();
  const [resolutions, assignments] = await Promise.all([
    db.problemResolution.findMany({ where: { key: { in: [...keys] } } }),
    db.problemAssignment.findMany({ where: { key: { in: [...keys] } } }),
  ]);
  const known = new Map<string, { tuple: ProblemTuple; resolution: ProblemResolution | null }>();
  const tupleOf = (row: {
    serverName: string | null;
    tool: string | null;
    state: string;
    reason: string | null;
  }) => ({
    server: row.serverName,
    tool: row.tool,
    state: row.state as State,
    reason: row.reason,
  });
  for (const row of assignments) known.set(row.key, { tuple: tupleOf(row), resolution: null });
  for (const row of resolutions)
    known.set(row.key, {
      tuple: tupleOf(row),
      resolution: { resolvedAt: row.resolvedAt.toISOString(), resolvedBy: row.resolvedBy },
    });
  return known;
}

/** The problem's assignee, with names; null when nobody owns it. */
export async function readProblemAssignee(db: Db, key: string): Promise<AssigneeView | null> {
  const row = await db.problemAssignment.findUnique({
    where: { key },
    select: { assignee: { select: { id: true, username: true, displayName: true } } },
  });
  return row?.assignee ?? null;
}

export async function saveProblemAssignee(
  db: Db,
  key: string,
  tuple: ProblemTuple,
  assigneeUserId: string,
  at: Date,
  by: string,
): Promise<void> {
  const fields = { assigneeUserId, assignedAt: at, assignedBy: by };
  await db.problemAssignment.upsert({
    where: { key },
    create: { ...problemKeyColumns(key, tuple), ...fields },
    update: fields,
  });
}

export async function deleteProblemAssignee(db: Db, key: string): Promise<void> {
  await db.problemAssignment.deleteMany({ where: { key } });
}
