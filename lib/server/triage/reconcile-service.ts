import type { OperatorEffect } from "@/lib/chains/operator-evidence";
import { decideReconcile } from "@/lib/chains/reconcile";
import type { ReconcileResult } from "@/lib/dashboard/api-types";
import type { ReconcileBody } from "@/lib/triage/schemas";
import { lockChains } from "../db/chain-writes";
import { getPrisma } from "../db/client";
import { prismaSql } from "../db/sql";
import {
  insertOperatorEffect,
  insertTriageEvent,
  readReconcileHead,
  resolveTriageItem,
} from "../db/triage-items";
import { commitChainState } from "../chains/commit-chain-state";
import { actorName, type Caller } from "../http/authenticate";
import { ApiError, notFound } from "../http/api-error";
import { rejectSecrets } from "../http/reject-secrets";
import { appendAuditEvent } from "../db/audit-events";
import { toTriageItemState } from "../db/triage-items";
import { auditActor, triageAuditView } from "./triage-audit";

/** Records what the destination shows for an effect-unknown chain and re-classifies the chain with it. */
export async function reconcile(
  chainId: string,
  body: ReconcileBody,
  caller: Caller,
  now = new Date(),
): Promise<ReconcileResult> {
  const receipt = body.status === "committed" ? body.receipt : null;
  rejectSecrets([
    ["$.receipt", receipt],
    ["$.note", body.note],
  ]);
  return reconcileChain({
    chainId,
    status: body.status,
    receipt,
    note: body.note ?? null,
    actor: actorName(caller),
    auditActor: auditActor(caller),
    now,
  });
}

export type ReconcileInput = {
  chainId: string;
  status: OperatorEffect["status"];
  receipt: string | null;
  note: string | null;
  actor: string;
  auditActor: ReturnType<typeof auditActor>;
  now: Date;
};

/**
 * One transaction under the chain's lock, so ingestion and the deadline worker see either the old chain or the
 * reconciled one, never half of it: the operator's evidence, the chain's new state (and its alerts), the queue
 * item settled when the effect is no longer unknown, and the audit event.
 */
export async function reconcileChain(input: ReconcileInput): Promise<ReconcileResult> {
  return getPrisma().$transaction(async (tx) => {
    await lockChains(prismaSql(tx), [input.chainId]);
    const head = await readReconcileHead(tx, input.chainId);
    if (!head) throw notFound("chain");
    const decision = decideReconcile(head, input, input.now);
    if ("refused" in decision) {
      throw new ApiError(
        409,
        "not_effect_unknown",
        "only a chain whose effect is unknown can be reconciled",
        [{ path: "$", code: "not_effect_unknown", message: decision.refused }],
      );
    }
    const { checkedAt, classification, settled } = decision;
    const effectId = await insertOperatorEffect(tx, {
      chainId: input.chainId,
      status: input.status,
      receipt: input.receipt,
      checkedAt,
      actor: input.actor,
      note: input.note,
    });
    await commitChainState(
      prismaSql(tx),
      [decision.row],
      decision.changes,
      new Map([[head.currentSeq, head.record]]),
    );
    const item = settled
      ? await resolveTriageItem(tx, input.chainId, "effect_unknown", input.actor, input.now)
      : null;
    await insertTriageEvent(tx, {
      chainId: input.chainId,
      queue: "effect_unknown",
      actor: input.actor,
      action: "reconcile",
      note: input.note,
      at: input.now,
      data: {
        status: input.status,
        receipt: input.receipt,
        operatorEffectId: effectId.toString(),
        fromState: head.state,
        toState: classification.state,
        shadowedState: classification.shadowed?.state ?? null,
        reason: classification.reasons[0] ?? null,
        resolved: settled,
      },
    });
    await appendAuditEvent(tx, {
      ...input.auditActor,
      action: "chain.reconcile",
      targetType: "chain",
      targetId: input.chainId,
      before: { state: head.state, shadowedState: head.shadowedState },
      after: {
        state: classification.state,
        shadowedState: classification.shadowed?.state ?? null,
        destination: input.status,
        receipt: input.receipt,
        ...(input.note ? { note: input.note } : {}),
        ...(item ? { item: triageAuditView("effect_unknown", toTriageItemState(item)) } : {}),
      },
    });
    return {
      chainId: input.chainId,
      fromState: head.state as ReconcileResult["fromState"],
      toState: classification.state,
      reasons: [...classification.reasons],
      retrySafe: classification.retrySafe ?? null,
      shadowed: classification.shadowed ?? null,
    };
  });
}
