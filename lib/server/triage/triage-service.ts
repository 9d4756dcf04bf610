import type { TriageItemView } from "@/lib/dashboard/api-types";
import type { TriageActionBody } from "@/lib/triage/schemas";
import {
  applyTriageAction,
  type TriageDecision,
  type TriageItemState,
  UNTOUCHED_ITEM,
} from "@/lib/triage/transitions";
import { toTriageItemView } from "@/lib/triage/view";
import type { LifecycleChanges, LifecycleOutcome } from "@/lib/problems/lifecycle";
import { countChanges, resolvedMessage } from "@/lib/problems/lifecycle";
import { readFiringAlertsOfChain } from "../db/problem-lifecycle";
import { keepForUndo, resolveBelow } from "../problems/lifecycle-service";
import { appendAuditEvent } from "../db/audit-events";
import { lockChains } from "../db/chain-writes";
import { getPrisma } from "../db/client";
import { prismaSql } from "../db/sql";
import {
  assignChainAlerts,
  insertTriageEvent,
  lockTriageItem,
  readChainStates,
  saveTriageItem,
} from "../db/triage-items";
import { ApiError, notFound } from "../http/api-error";
import { actorName, type Caller } from "../http/authenticate";
import { rejectSecrets } from "../http/reject-secrets";
import { checkAssignee } from "../team/assignee-check";
import { auditActor, triageAuditView } from "./triage-audit";

/** Acknowledge, assign, unassign, note, resolve or reopen a chain's item in one queue; audited with before/after. */
export type TriageAnswer = { item: TriageItemView; lifecycle?: LifecycleOutcome };

export async function triageChain(
  chainId: string,
  body: TriageActionBody,
  caller: Caller,
  now = new Date(),
): Promise<TriageAnswer> {
  rejectSecrets([["$.note", body.note]]);
  return changeTriageItem(chainId, body, caller, now);
}

/**
 * One triage decision, atomically: the chain and its item are read under locks, the pure transition decides the
 * next item and the trail's event, the item, the event and the audit event are written. A chain may be triaged in a
 * queue while it is in that queue (by state or shadowed state), or later if it already has an item there (to note
 * or reopen after it moved on).
 */
async function changeTriageItem(
  chainId: string,
  body: TriageActionBody,
  caller: Caller,
  now: Date,
): Promise<TriageAnswer> {
  const queue = body.queue;
  const actor = actorName(caller);
  return getPrisma().$transaction(async (tx) => {
    // The chain's lock first, as every writer of its state and alerts takes it: no lock-order deadlock with
    // ingestion or reconciliation.
    await lockChains(prismaSql(tx), [chainId]);
    const chain = await readChainStates(tx, chainId);
    if (!chain) throw notFound("chain");
    const stored = await lockTriageItem(tx, chainId, queue);
    const inQueue = chain.state === queue || chain.shadowedState === queue;
    if (!inQueue && !stored) {
      throw new ApiError(409, "not_in_queue", `the chain is not in the ${queue} queue`, [
        { path: "$.queue", code: "not_in_queue", message: `chain state is ${chain.state}` },
      ]);
    }
    const decision: TriageDecision =
      body.action === "assign"
        ? { action: "assign", queue, assignee: await checkAssignee(tx, body.assigneeId), note: body.note }
        : body;
    const before = stored ?? UNTOUCHED_ITEM;
    const outcome = applyTriageAction(before, decision, actor, now);
    if ("refused" in outcome) {
      throw new ApiError(409, "invalid_transition", outcome.refused, [
        { path: "$.action", code: "invalid_transition", message: outcome.refused },
      ]);
    }
    const { next, event } = outcome;
    // Resolving the item resolves the queue state's firing alerts too (unless `cascade: false`), in the same
    // transaction (receivers get "resolved"); both are kept for the undo.
    const resolving = body.action === "resolve";
    const alerts =
      resolving && body.cascade !== false ? await readFiringAlertsOfChain(tx, chainId, [queue]) : [];
    const saved = await saveTriageItem(tx, chainId, queue, next);
    await insertTriageEvent(tx, { chainId, queue, actor, ...event });
    if (body.action === "assign" || body.action === "unassign") {
      await assignChainAlerts(tx, chainId, queue, next.assignee?.id ?? null);
    }
    await appendAuditEvent(tx, {
      ...auditActor(caller),
      action: `triage.${body.action}`,
      targetType: "chain",
      targetId: chainId,
      before: stored ? triageAuditView(queue, stored) : null,
      after: { ...triageAuditView(queue, next), ...(event.note ? { note: event.note } : {}) },
    });
    if (!resolving) return { item: toTriageItemView(saved) };
    const changes: LifecycleChanges = { asked: [chainId], problems: [], items: [], alerts: [] };
    await resolveBelow(tx, [], alerts, actor, now, changes);
    changes.items.push({
      chainId,
      queue,
      before: stored ? snapshot(stored) : null,
      after: snapshot(next),
    });
    const undo = await keepForUndo(tx, "triage_item", changes, auditActor(caller), now);
    const resolved = countChanges(changes);
    return {
      item: toTriageItemView(saved),
      lifecycle: { resolved, message: resolvedMessage(resolved), undo },
    };
  });
}

const snapshot = (item: TriageItemState) => ({
  status: item.status,
  acknowledgedAt: item.acknowledgedAt?.toISOString() ?? null,
  acknowledgedBy: item.acknowledgedBy,
  resolvedAt: item.resolvedAt?.toISOString() ?? null,
  resolvedBy: item.resolvedBy,
});
