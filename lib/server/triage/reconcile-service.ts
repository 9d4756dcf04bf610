import type { OperatorEffect, OperatorOutcome } from "@/lib/chains/operator-evidence";
import { decideReconcile, type SettledBy } from "@/lib/chains/reconcile";
import type { Classification } from "@/lib/classifier";
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
  /** The deliverable's verdict, from a destination check that asserts it. */
  outcome?: OperatorOutcome | null;
  /** What the evidence settles: an unknown effect (default) or, from a check asserting the outcome, an unverified chain. */
  settles?: SettledBy;
};

/**
 * One transaction under the chain's lock, so ingestion and the deadline worker see either the old chain or the
 * reconciled one, never half of it: the recorded evidence, the chain's new state (and its alerts), the queue item
 * settled when the effect is no longer unknown, and the audit event. An unverified chain a check verified has no
 * queue item to settle: the audit event (`chain.verify`) and the chain's state history say what happened.
 */
export async function reconcileChain(input: ReconcileInput): Promise<ReconcileResult> {
  return getPrisma().$transaction(async (tx) => {
    await lockChains(prismaSql(tx), [input.chainId]);
    const head = await readReconcileHead(tx, input.chainId);
    if (!head) throw notFound("chain");
    const settles = input.settles ?? "effect_unknown";
    const decision = decideReconcile(head, input, input.now, settles);
    if ("refused" in decision) {
      const [code, message] =
        settles === "effect_unknown"
          ? ["not_effect_unknown", "only a chain whose effect is unknown can be reconciled"]
          : ["not_unverified", "only an unverified call can be verified"];
      throw new ApiError(409, code, message, [{ path: "$", code, message: decision.refused }]);
    }
    const { checkedAt, classification, settled } = decision;
    const effectId = await insertOperatorEffect(tx, {
      chainId: input.chainId,
      status: input.status,
      receipt: input.receipt,
      checkedAt,
      actor: input.actor,
      note: input.note,
      outcome: input.outcome ?? null,
    });
    await commitChainState(
      prismaSql(tx),
      [decision.row],
      decision.changes,
      new Map([[head.currentSeq, head.record]]),
    );
    const outcome = input.outcome ?? null;
    if (settles === "unverified") {
      await appendAuditEvent(tx, {
        ...input.auditActor,
        action: "chain.verify",
        targetType: "chain",
        targetId: input.chainId,
        before: { state: head.state },
        after: { state: classification.state, destination: input.status, receipt: input.receipt, outcome },
      });
      return reconcileResult(input.chainId, head.state, classification);
    }
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
        ...(outcome ? { outcome: outcome.verdict, outcomeReceipt: outcome.receipt } : {}),
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
        ...(outcome ? { outcome } : {}),
        ...(input.note ? { note: input.note } : {}),
        ...(item ? { item: triageAuditView("effect_unknown", toTriageItemState(item)) } : {}),
      },
    });
    return reconcileResult(input.chainId, head.state, classification);
  });
}

function reconcileResult(
  chainId: string,
  fromState: string,
  classification: Classification,
): ReconcileResult {
  return {
    chainId,
    fromState: fromState as ReconcileResult["fromState"],
    toState: classification.state,
    reasons: [...classification.reasons],
    retrySafe: classification.retrySafe ?? null,
    shadowed: classification.shadowed ?? null,
  };
}
