import { classify } from "@/lib/classifier";
import type { HealthRecord, State } from "@/lib/contract";
import type { ReconcileResult } from "@/lib/dashboard/api-types";
import { ApiError, notFound } from "../http/api-error";
import { chainRowFor, type StateChange } from "../ingest/chain-transitions";
import { classifyWithOperatorEffect, type OperatorEffect } from "../ingest/operator-evidence";
import { lockChains, writeChainState } from "./chain-writes";
import { getPrisma } from "./client";
import { prismaSql } from "./sql";
import { resolveTriageItem } from "./triage-items";

export type ReconcileInput = {
  chainId: string;
  status: OperatorEffect["status"];
  receipt: string | null;
  note: string | null;
  actor: string;
  now: Date;
};

type Head = {
  state: string;
  shadowed_state: string | null;
  current_seq: bigint;
  record_count: number;
  body: HealthRecord;
};

/**
 * Reconciliation (issue 5, contract rules 17 and 19): the operator's look at the destination becomes evidence on
 * the chain, and the chain's current record is classified again with it — committed goes on to the outcome rule,
 * absent is `tool_failed` with retrySafe. One transaction under the chain's lock, so ingestion and the deadline
 * worker see either the old chain or the reconciled one, never half of it.
 */
export async function reconcileChain(input: ReconcileInput): Promise<ReconcileResult> {
  return getPrisma().$transaction(async (tx) => {
    await lockChains(prismaSql(tx), [input.chainId]);
    const [head] = await tx.$queryRaw<Head[]>`
      select c.state, c.shadowed_state, c.current_seq, c.record_count, r.body
      from chains c join health_records r on r.seq = c.current_seq
      where c.chain_id = ${input.chainId}`;
    if (!head) throw notFound("chain");
    if (head.state !== "effect_unknown" && head.shadowed_state !== "effect_unknown") {
      throw new ApiError(
        409,
        "not_effect_unknown",
        "only a chain whose effect is unknown can be reconciled",
        [{ path: "$", code: "not_effect_unknown", message: `chain state is ${head.state}` }],
      );
    }
    const record = head.body;
    const observedAtMs = Date.parse(record.observedAt);
    // An agent whose clock runs ahead could report a call that "starts" after now; the operator looked at the
    // destination after the call whatever the clocks say, so the check is never dated before the record.
    const checkedAt = new Date(Math.max(input.now.getTime(), observedAtMs));
    const effect = await tx.operatorEffect.create({
      data: {
        chainId: input.chainId,
        status: input.status,
        receipt: input.receipt,
        checkedAt,
        actor: input.actor,
        note: input.note,
      },
    });
    const classification = classifyWithOperatorEffect(
      record,
      classify(record),
      { status: input.status, receipt: input.receipt, checkedAt },
      checkedAt.getTime(),
    );
    const stored = { seq: head.current_seq, index: 0, record, observedAtMs, classification };
    const changes: StateChange[] =
      classification.state === head.state
        ? []
        : [
            {
              chainId: input.chainId,
              fromState: head.state,
              toState: classification.state,
              reason: classification.reasons[0] ?? "",
              at: input.now,
              recordId: record.recordId,
              cause: "reconcile",
            },
          ];
    await writeChainState(
      prismaSql(tx),
      [chainRowFor(stored, head.record_count, input.now)],
      changes,
      new Map([[head.current_seq, record]]),
    );
    const settled =
      classification.state !== "effect_unknown" && classification.shadowed?.state !== "effect_unknown";
    if (settled) await resolveTriageItem(tx, input.chainId, "effect_unknown", input.actor, input.now);
    await tx.triageEvent.create({
      data: {
        chainId: input.chainId,
        queue: "effect_unknown",
        actor: input.actor,
        action: "reconcile",
        note: input.note,
        at: input.now,
        data: {
          status: input.status,
          receipt: input.receipt,
          operatorEffectId: effect.id.toString(),
          fromState: head.state,
          toState: classification.state,
          shadowedState: classification.shadowed?.state ?? null,
          reason: classification.reasons[0] ?? null,
          resolved: settled,
        },
      },
    });
    return {
      chainId: input.chainId,
      fromState: head.state as State,
      toState: classification.state,
      reasons: [...classification.reasons],
      retrySafe: classification.retrySafe ?? null,
      shadowed: classification.shadowed ?? null,
    };
  });
}
