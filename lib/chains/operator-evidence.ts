import { type Classification, classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";

/** Destination evidence an operator recorded while reconciling a chain (the effect-unknown queue). */
export type OperatorEffect = {
  status: "committed" | "absent";
  receipt: string | null;
  checkedAt: Date;
};

/**
 * The operator's reconciliation is evidence like any other (contract §3 rules 17 and 19): it stands in for the
 * record's own `call.effect` unless the record brings newer destination evidence itself — so a later record of the
 * same call without a newer check does not wipe what the operator saw. The evaluation time is the later of `atMs`
 * (default: the record's observedAt) and the operator's check, since the evidence did not exist before it was taken.
 */
export function classifyWithOperatorEffect(
  record: HealthRecord,
  classification: Classification,
  effect: OperatorEffect | null | undefined,
  atMs: number = Date.parse(record.observedAt),
): Classification {
  const call = record.call;
  if (!effect || !call) return classification;
  const ownCheck = call.effect ? Date.parse(call.effect.checkedAt) : Number.NEGATIVE_INFINITY;
  if (ownCheck >= effect.checkedAt.getTime()) return classification;
  const merged: HealthRecord = {
    ...record,
    call: {
      ...call,
      effect: {
        checkedAt: effect.checkedAt.toISOString(),
        status: effect.status,
        ...(effect.receipt ? { receipt: effect.receipt } : {}),
      },
    },
  };
  const at = Math.max(atMs, effect.checkedAt.getTime());
  return classify(merged, new Date(at).toISOString());
}
