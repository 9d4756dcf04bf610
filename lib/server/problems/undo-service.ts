import {
  countChanges,
  type CurrentStates,
  itemId,
  type LifecycleChanges,
  UNDO_WINDOW_MS,
  type UndoOutcome,
  undoConflicts,
  undoneMessage,
} from "@/lib/problems/lifecycle";
import type { AuditActor } from "../audit/audit-actor";
import { appendAuditEvent } from "../db/audit-events";
import { lockChains } from "../db/chain-writes";
import { getPrisma } from "../db/client";
import { lockProblemKeys } from "../db/problem-assignees";
import {
  lockLifecycleResolution,
  markUndone,
  readCurrentStates,
  restoreAlerts,
  restoreItems,
  restoreProblems,
} from "../db/problem-lifecycle";
import { prismaSql } from "../db/sql";
import { ApiError } from "../http/api-error";
import { LIFECYCLE_TX } from "./lifecycle-service";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const refuse = (status: number, code: string, message: string, path = "$.path.id") =>
  new ApiError(status, code, message, [{ path, code, message }]);

/**
 * Undoes one resolve: what it changed goes back to exactly its state before, in one transaction under the same
 * locks (the problems', then the chains'), audited. All or nothing: anything changed since (an item reopened, an
 * alert fired again by a newer record, the problem resolved again or reopened) is 409 `changed_since` at its path in
 * the resolve's changes, and nothing is written. Twice: 409 `already_undone`; past the window: 409 `undo_expired`.
 */
export async function undoResolution(id: string, actor: AuditActor, now = new Date()): Promise<UndoOutcome> {
  if (!UUID.test(id)) throw refuse(404, "not_found", "no resolve has this id");
  return getPrisma().$transaction(async (tx) => {
    const row = await lockLifecycleResolution(tx, id);
    if (!row) throw refuse(404, "not_found", "no resolve has this id");
    if (row.undone_at)
      throw refuse(409, "already_undone", `this resolve was undone by ${row.undone_by} already`);
    if (now.getTime() - row.at.getTime() > UNDO_WINDOW_MS)
      throw refuse(
        409,
        "undo_expired",
        `a resolve can be undone for ${UNDO_WINDOW_MS / 60_000} minutes only`,
      );
    const changes = row.changes;
    await lockProblemKeys(
      tx,
      changes.problems.map((problem) => problem.key),
    );
    await lockChains(prismaSql(tx), [
      ...changes.items.map((item) => item.chainId),
      ...changes.alerts.map((alert) => alert.chainId),
    ]);
    const conflicts = undoConflicts(changes, currentStates(await readCurrentStates(tx, changes)));
    if (conflicts.length > 0) {
      throw new ApiError(
        409,
        "changed_since",
        `${conflicts.length === 1 ? "one thing" : `${conflicts.length} things`} this resolve changed changed again since: nothing was undone`,
        conflicts.map((conflict) => ({ ...conflict, code: "changed_since" })),
      );
    }
    await restoreProblems(tx, changes.problems);
    await restoreItems(tx, changes.items, actor.actor, now);
    await restoreAlerts(tx, changes.alerts, now);
    await markUndone(tx, id, now, actor.actor);
    const restored = countChanges(changes);
    for (const audit of undoAudits(row.kind, changes)) {
      await appendAuditEvent(tx, {
        ...actor,
        ...audit,
        after: { ...audit.after, resolutionId: id, restored },
      });
    }
    return { id, restored, message: undoneMessage(restored) };
  }, LIFECYCLE_TX);
}

function currentStates(read: Awaited<ReturnType<typeof readCurrentStates>>): CurrentStates {
  return {
    problems: new Map(
      read.problems.map((row) => [
        row.key,
        { resolvedAt: row.resolvedAt.toISOString(), resolvedBy: row.resolvedBy },
      ]),
    ),
    items: new Map(
      read.items.map((row) => [
        itemId(row.chain_id, row.queue),
        {
          status: row.status,
          acknowledgedAt: row.acknowledged_at?.toISOString() ?? null,
          acknowledgedBy: row.acknowledged_by,
          resolvedAt: row.resolved_at?.toISOString() ?? null,
          resolvedBy: row.resolved_by,
        },
      ]),
    ),
    alerts: new Map(
      read.alerts.map((row) => [
        row.fingerprint,
        { status: row.status, endsAt: row.endsAt?.toISOString() ?? null, resolvedBy: row.resolvedBy },
      ]),
    ),
  };
}

/** One audit event a problem the resolve changed; a triage item's resolve, one on its chain. */
function undoAudits(kind: string, changes: LifecycleChanges) {
  if (kind === "triage_item") {
    const item = changes.items[0];
    const chainId = item?.chainId ?? changes.alerts[0]?.chainId ?? "";
    return [
      {
        action: "triage.resolve_undo" as const,
        targetType: "chain" as const,
        targetId: chainId,
        before: { queue: item?.queue ?? null, status: item?.after.status ?? null },
        after: { queue: item?.queue ?? null, status: item?.before?.status ?? "open" },
      },
    ];
  }
  return changes.asked.map((key) => {
    const problem = changes.problems.find((change) => change.key === key);
    return {
      action: "problem.resolve_undo" as const,
      targetType: "problem" as const,
      targetId: key,
      before: { resolution: problem ? problem.after : "unchanged" },
      after: { resolution: problem ? problem.before : "unchanged" },
    };
  });
}
