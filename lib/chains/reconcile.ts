import { type Classification, classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";
import { classifyWithOperatorEffect, type OperatorEffect } from "./operator-evidence";
import { type ChainRow, chainRowFor, type StateChange } from "./transitions";

/** The chain as reconciliation reads it under its lock: its state and its current record. */
export type ReconcileHead = {
  chainId: string;
  state: string;
  shadowedState: string | null;
  currentSeq: bigint;
  recordCount: number;
  record: HealthRecord;
};

export type ReconcileDecision =
  | { refused: string }
  | {
      /** When the operator looked: never dated before the record, whatever the agent's clock said. */
      checkedAt: Date;
      classification: Classification;
      row: ChainRow;
      changes: StateChange[];
      /** Neither the state nor the shadowed state is effect_unknown any more: the queue item is resolved. */
      settled: boolean;
    };

/**
 * The states destination evidence can settle: an effect nobody could see (reconciliation, contract rules 17 and 19)
 * and a deliverable nobody verified (a check that asserts the outcome, rules 20–22). Either as the chain's state or,
 * for an unknown effect, as its shadowed state.
 */
export type SettledBy = "effect_unknown" | "unverified";

/**
 * The destination's evidence (an operator's look or a check's read) becomes evidence on the chain, and the chain's
 * current record is classified again with it — committed goes on to the outcome rule (with the check's outcome when
 * it asserts one), absent is `tool_failed` with retrySafe after an unfinished write and `false_success` after a
 * successful result. Only a chain in the state `settles` names can be settled this way.
 */
export function decideReconcile(
  head: ReconcileHead,
  evidence: Pick<OperatorEffect, "status" | "receipt" | "outcome">,
  now: Date,
  settles: SettledBy = "effect_unknown",
): ReconcileDecision {
  const settleable =
    settles === "effect_unknown"
      ? head.state === "effect_unknown" || head.shadowedState === "effect_unknown"
      : head.state === "unverified" && head.record.call !== undefined;
  if (!settleable) return { refused: `chain state is ${head.state}` };
  const record = head.record;
  const observedAtMs = Date.parse(record.observedAt);
  // An agent whose clock runs ahead could report a call that "starts" after now; the operator looked at the
  // destination after the call whatever the clocks say, so the check is never dated before the record.
  const checkedAt = new Date(Math.max(now.getTime(), observedAtMs));
  const classification = classifyWithOperatorEffect(
    record,
    classify(record),
    { ...evidence, checkedAt },
    checkedAt.getTime(),
  );
  const stored = { seq: head.currentSeq, index: 0, record, observedAtMs, classification };
  const changes: StateChange[] =
    classification.state === head.state
      ? []
      : [
          {
            chainId: head.chainId,
            fromState: head.state,
            toState: classification.state,
            reason: classification.reasons[0] ?? "",
            at: now,
            recordId: record.recordId,
            cause: "reconcile",
          },
        ];
  return {
    checkedAt,
    classification,
    row: chainRowFor(stored, head.recordCount, now),
    changes,
    settled: classification.state !== "effect_unknown" && classification.shadowed?.state !== "effect_unknown",
  };
}
