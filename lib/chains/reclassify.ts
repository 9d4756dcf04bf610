import { classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";
import { classifyWithOperatorEffect, type OperatorEffect } from "./operator-evidence";
import { type ChainRow, chainRowFor, classificationColumns, type StateChange } from "./transitions";

/** A chain's stored classification columns (classificationColumns), as read back. */
export type StoredClassification = {
  state: string;
  layer: string;
  reasons: readonly string[];
  retrySafe: boolean | null;
  evidence: string | null;
  shadowedState: string | null;
  shadowedReason: string | null;
  nextCheckAt: Date | null;
};

export type StoredChain = {
  chainId: string;
  currentSeq: bigint;
  recordCount: number;
  /** When the stored classification was made: the record's observedAt, or the deadline re-classification's time. */
  evaluatedAt: Date;
  stored: StoredClassification;
  record: HealthRecord;
};

/**
 * The chain's current record classified again by today's classifier, at the time its stored classification was
 * made (with any destination evidence an operator recorded): undefined when nothing changes, else the chain's new
 * row and, when its state moves, the history row (cause `reclassify`). What a classifier change (a contract
 * version) does to stored chains, so stats, queues, problems and alerts agree with what a new record would get.
 */
export function reclassifyStored(
  chain: StoredChain,
  operatorEffect: OperatorEffect | undefined,
  now: Date,
): { row: ChainRow; change?: StateChange } | undefined {
  const { record } = chain;
  const atMs = chain.evaluatedAt.getTime();
  const classification = classifyWithOperatorEffect(
    record,
    classify(record, new Date(Math.max(atMs, Date.parse(record.observedAt))).toISOString()),
    operatorEffect,
    atMs,
  );
  if (sameColumns(classificationColumns(classification), chain.stored)) return undefined;
  const row = chainRowFor(
    {
      seq: chain.currentSeq,
      index: 0,
      record,
      observedAtMs: Date.parse(record.observedAt),
      classification,
    },
    chain.recordCount,
    chain.evaluatedAt,
  );
  if (classification.state === chain.stored.state) return { row };
  return {
    row,
    change: {
      chainId: chain.chainId,
      fromState: chain.stored.state,
      toState: classification.state,
      reason: classification.reasons[0] ?? "",
      at: now,
      recordId: record.recordId,
      cause: "reclassify",
    },
  };
}

function sameColumns(a: StoredClassification, b: StoredClassification): boolean {
  return (
    a.state === b.state &&
    a.layer === b.layer &&
    a.reasons.length === b.reasons.length &&
    a.reasons.every((reason, i) => reason === b.reasons[i]) &&
    a.retrySafe === b.retrySafe &&
    a.evidence === b.evidence &&
    a.shadowedState === b.shadowedState &&
    a.shadowedReason === b.shadowedReason &&
    (a.nextCheckAt?.getTime() ?? null) === (b.nextCheckAt?.getTime() ?? null)
  );
}
