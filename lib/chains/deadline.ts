import { classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";
import { classifyWithOperatorEffect, type OperatorEffect } from "./operator-evidence";
import { type ChainRow, chainRowFor, type StateChange } from "./transitions";

/** A `working` chain whose nextCheckAt has passed, with its current record. */
export type DueChain = {
  chainId: string;
  nextCheckAt: Date;
  currentSeq: bigint;
  currentRecordId: string;
  recordCount: number;
  record: HealthRecord;
};

export type DeadlineDecision = {
  row: ChainRow;
  /** Absent when the chain is still `working` (a longer deadline, still inside it). */
  change?: StateChange;
};

/**
 * Waiting never stays green (contract §4): the chain's current record is classified again at nextCheckAt + 1 ms,
 * with any destination evidence an operator recorded.
 */
export function reclassifyAtDeadline(chain: DueChain, operatorEffect?: OperatorEffect): DeadlineDecision {
  const body = chain.record;
  const at = new Date(chain.nextCheckAt.getTime() + 1);
  const classification = classifyWithOperatorEffect(
    body,
    classify(body, at.toISOString()),
    operatorEffect,
    at.getTime(),
  );
  const stored = {
    seq: chain.currentSeq,
    index: 0,
    record: body,
    observedAtMs: Date.parse(body.observedAt),
    classification,
  };
  const row = chainRowFor(stored, chain.recordCount, at);
  if (classification.state === "working") return { row };
  return {
    row,
    change: {
      chainId: chain.chainId,
      fromState: "working",
      toState: classification.state,
      reason: classification.reasons[0] ?? "",
      at,
      recordId: body.recordId,
      cause: "deadline",
    },
  };
}
