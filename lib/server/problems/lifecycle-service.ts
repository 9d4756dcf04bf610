import { randomUUID } from "node:crypto";
import {
  countChanges,
  type LifecycleChanges,
  type LifecycleOutcome,
  MAX_CASCADE,
  type ProblemsBelow,
  type ResolvedCounts,
  resolvedMessage,
  UNDO_WINDOW_MS,
} from "@/lib/problems/lifecycle";
import { problemStatus } from "@/lib/problems/status";
import type { ProblemResolution, ProblemResolutionResult, ProblemTuple } from "@/lib/problems/types";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { AuditActor } from "../audit/audit-actor";
import { appendAuditEvent } from "../db/audit-events";
import { lockChains } from "../db/chain-writes";
import { getPrisma } from "../db/client";
import {
  type AlertBelow,
  type ItemBelow,
  readBelowProblem,
  resolveAlertsBelow,
  resolveItemsBelow,
  saveLifecycleResolution,
} from "../db/problem-lifecycle";
import { lockProblemKeys, readStoredProblems } from "../db/problem-assignees";
import { saveProblemResolution } from "../db/problems";
import { prismaSql } from "../db/sql";
import { ApiError } from "../http/api-error";
import { findProblems } from "./find-problems";

/** A resolve touching thousands of rows: more than Prisma's default five seconds, bounded all the same. */
export const LIFECYCLE_TX = { maxWait: 10_000, timeout: 60_000 } as const;

type Found = { key: string; tuple: ProblemTuple; lastWrittenMs: number | null };

/** The problems with these keys, or 404 `not_found` naming each unknown one at its JSON path (`$.keys[2]`). */
export async function knownProblems(keys: readonly string[], path: (index: number) => string, now: Date) {
  const found = await findProblems(keys, now);
  const missing = keys.filter((key) => !found.has(key));
  const stored = await readStoredProblems(missing);
  const unknown = keys.flatMap((key, index) => (found.has(key) || stored.has(key) ? [] : [index]));
  if (unknown.length > 0) {
    throw new ApiError(
      404,
      "not_found",
      unknown.length === 1 ? "problem not found" : `${unknown.length} problems not found`,
      unknown.map((index) => ({
        path: path(index),
        code: "unknown_problem",
        message: "no chain of this problem in 30 days, and no resolution of it",
      })),
    );
  }
  return keys.map((key): Found => {
    const problem = found.get(key);
    if (problem) return { key, tuple: problem, lastWrittenMs: problem.lastWrittenMs };
    return { key, tuple: (stored.get(key) as { tuple: ProblemTuple }).tuple, lastWrittenMs: null };
  });
}

/** What a cascade would also resolve below these problems (the confirmation's numbers); nothing is written. */
export async function problemsBelow(keys: readonly string[], now = new Date()): Promise<ProblemsBelow> {
  const problems = await knownProblems(keys, (index) => `$.query.key[${index}]`, now);
  const stored = await readStoredProblems(keys);
  const below = await Promise.all(
    problems.map((problem) => readBelowProblem(getPrisma(), problem.tuple, MAX_CASCADE + 1)),
  );
  const items = below.reduce((sum, part) => sum + part.items.length, 0);
  const alerts = below.reduce((sum, part) => sum + part.alerts.length, 0);
  const open = problems.filter(
    (problem) => statusOf(problem, stored.get(problem.key)?.resolution ?? null) !== "resolved",
  );
  return {
    problems: open.length,
    items: Math.min(items, MAX_CASCADE),
    alerts: Math.min(alerts, MAX_CASCADE),
    tooMany: items + alerts > MAX_CASCADE,
  };
}

const statusOf = (problem: Found, resolution: ProblemResolution | null) =>
  problem.lastWrittenMs === null
    ? resolution
      ? "resolved"
      : "open"
    : problemStatus(problem.lastWrittenMs, resolution);

export type ResolveProblemsResult = { problems: ProblemResolutionResult[] } & LifecycleOutcome;

/**
 * Resolves problems and, with `cascade`, what hangs below them (their chains' unresolved items in the problem's
 * queue, their firing alerts of its state), in one transaction: the problems' locks, then their chains', every write
 * and one audit event a problem that changed. A resolved problem keeps its first resolution (a regressed one is
 * resolved again from now). What changed is kept for the undo.
 */
export async function resolveProblems(
  keys: readonly string[],
  options: { cascade: boolean; keysPath?: (index: number) => string },
  actor: AuditActor,
  now = new Date(),
): Promise<ResolveProblemsResult> {
  const problems = await knownProblems(keys, options.keysPath ?? ((index) => `$.keys[${index}]`), now);
  return getPrisma().$transaction(async (tx) => {
    await lockProblemKeys(tx, keys);
    const below = options.cascade
      ? await lockBelow(tx, problems)
      : problems.map(() => ({ items: [], alerts: [] }));
    const stored = await readStoredProblems(keys, tx);
    const changes: LifecycleChanges = { asked: [...keys], problems: [], items: [], alerts: [] };
    const results: ProblemResolutionResult[] = [];
    for (const [index, problem] of problems.entries()) {
      const before = stored.get(problem.key)?.resolution ?? null;
      const status = statusOf(problem, before);
      const resolution =
        status === "resolved" && before
          ? before
          : await saveProblemResolution(problem.key, problem.tuple, now, actor.actor, tx);
      if (resolution !== before)
        changes.problems.push({ key: problem.key, tuple: problem.tuple, before, after: resolution });
      results.push({ key: problem.key, status: "resolved", resolution });
      const { items, alerts } = below[index] as { items: ItemBelow[]; alerts: AlertBelow[] };
      const cascaded = await resolveBelow(tx, items, alerts, actor.actor, now, changes);
      if (resolution === before && cascaded.items + cascaded.alerts === 0) continue;
      await appendAuditEvent(tx, {
        ...actor,
        action: "problem.resolve",
        targetType: "problem",
        targetId: problem.key,
        before: { status, resolution: before },
        after: { status: "resolved", resolution, cascade: options.cascade, resolvedBelow: cascaded },
      });
    }
    const undo = await keepForUndo(tx, "problem", changes, actor, now);
    const resolved = countChanges(changes);
    return { problems: results, resolved, message: resolvedMessage(resolved), undo };
  }, LIFECYCLE_TX);
}

/**
 * Reads what hangs below each problem, locks those chains (sorted, as every writer of items and alerts does), and
 * reads it again under the locks, keeping to the chains locked. Past MAX_CASCADE: 409 `cascade_too_large`.
 */
async function lockBelow(tx: Prisma.TransactionClient, problems: readonly Found[]) {
  const first = await Promise.all(
    problems.map((problem) => readBelowProblem(tx, problem.tuple, MAX_CASCADE + 1)),
  );
  const total = first.reduce((sum, part) => sum + part.items.length + part.alerts.length, 0);
  if (total > MAX_CASCADE) {
    const message = `more than ${MAX_CASCADE} queue items and alerts hang below: resolve fewer problems at once, or without cascade`;
    throw new ApiError(409, "cascade_too_large", message, [
      { path: "$.cascade", code: "cascade_too_large", message },
    ]);
  }
  const chainIds = [
    ...new Set(first.flatMap((part) => [...part.items, ...part.alerts].map((entry) => entry.chainId))),
  ];
  await lockChains(prismaSql(tx), chainIds);
  const below = [];
  for (const problem of problems)
    below.push(await readBelowProblem(tx, problem.tuple, MAX_CASCADE + 1, chainIds));
  return below;
}

/** Resolves the items and alerts below (under their chains' locks), adding them to `changes`. */
export async function resolveBelow(
  tx: Prisma.TransactionClient,
  items: readonly ItemBelow[],
  alerts: readonly AlertBelow[],
  actor: string,
  now: Date,
  changes: LifecycleChanges,
): Promise<Omit<ResolvedCounts, "problems">> {
  await resolveItemsBelow(tx, items, actor, now);
  const mark = `operator:${actor}`;
  await resolveAlertsBelow(tx, alerts, mark, now);
  const at = now.toISOString();
  for (const item of items)
    changes.items.push({
      ...item,
      after: {
        status: "resolved",
        acknowledgedAt: item.before?.acknowledgedAt ?? null,
        acknowledgedBy: item.before?.acknowledgedBy ?? null,
        resolvedAt: at,
        resolvedBy: actor,
      },
    });
  for (const alert of alerts)
    changes.alerts.push({ ...alert, after: { status: "resolved", endsAt: at, resolvedBy: mark } });
  return { items: items.length, alerts: alerts.length };
}

/** Keeps the changes for their undo (when anything changed): the undo's id and until when it is offered. */
export async function keepForUndo(
  tx: Prisma.TransactionClient,
  kind: "problem" | "triage_item",
  changes: LifecycleChanges,
  actor: AuditActor,
  now: Date,
): Promise<LifecycleOutcome["undo"]> {
  const counts = countChanges(changes);
  if (counts.problems + counts.items + counts.alerts === 0) return null;
  const id = randomUUID();
  // Kept a day, past the undo's window, so a late undo answers `undo_expired`, not `not_found`.
  await saveLifecycleResolution(
    tx,
    { id, at: now, actorUserId: actor.actorUserId, actor: actor.actor, kind, changes },
    new Date(now.getTime() - 24 * 3_600_000),
  );
  return { id, expiresAt: new Date(now.getTime() + UNDO_WINDOW_MS).toISOString() };
}
