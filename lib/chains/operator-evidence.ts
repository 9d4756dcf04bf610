import { type Classification, classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";

/** What a destination check (or an operator) read back about the deliverable itself, beside the effect. */
export type OperatorOutcome = {
  verdict: "pass" | "fail";
  /** How it was read: an HTTP check is `http_status`, a SQL check `db_row`. */
  verifier: "http_status" | "db_row" | "other";
  receipt: string | null;
};

/**
 * Destination evidence recorded outside the record: an operator reconciling a chain (the effect-unknown queue) or a
 * destination check Receipt ran (actor `check:<name>`), with the outcome when the check asserts one.
 */
export type OperatorEffect = {
  status: "committed" | "absent";
  receipt: string | null;
  checkedAt: Date;
  outcome?: OperatorOutcome | null;
};

/**
 * Recorded destination evidence is evidence like any other (contract §3 rules 17, 19–22): it stands in for the
 * record's own `call.effect` (and `call.outcome`, when it carries one) unless the record brings newer evidence of
 * that layer itself — so a later record of the same call without a newer check does not wipe what was seen. The
 * evaluation time is the later of `atMs` (default: the record's observedAt) and the check, since the evidence did
 * not exist before it was taken.
 */
export function classifyWithOperatorEffect(
  record: HealthRecord,
  classification: Classification,
  effect: OperatorEffect | null | undefined,
  atMs: number = Date.parse(record.observedAt),
): Classification {
  const call = record.call;
  if (!effect || !call) return classification;
  const checkedAt = effect.checkedAt.getTime();
  const newer = (own: { checkedAt: string } | undefined) => !own || Date.parse(own.checkedAt) < checkedAt;
  const effectNewer = newer(call.effect);
  const outcomeNewer = Boolean(effect.outcome) && newer(call.outcome);
  if (!effectNewer && !outcomeNewer) return classification;
  const at = effect.checkedAt.toISOString();
  const merged: HealthRecord = {
    ...record,
    call: {
      ...call,
      ...(effectNewer
        ? {
            effect: {
              checkedAt: at,
              status: effect.status,
              ...(effect.receipt ? { receipt: effect.receipt } : {}),
            },
          }
        : {}),
      ...(outcomeNewer && effect.outcome
        ? {
            outcome: {
              checkedAt: at,
              verifier: effect.outcome.verifier,
              verdict: effect.outcome.verdict,
              ...(effect.outcome.receipt ? { receipt: effect.outcome.receipt } : {}),
            },
          }
        : {}),
    },
  };
  return classify(merged, new Date(Math.max(atMs, checkedAt)).toISOString());
}

/** The outcome as stored beside the effect (three nullable columns): present only when a verdict was recorded. */
export function storedOutcome(
  verdict: string | null,
  verifier: string | null,
  receipt: string | null,
): OperatorOutcome | null {
  if (verdict !== "pass" && verdict !== "fail") return null;
  const how = verifier === "http_status" || verifier === "db_row" ? verifier : "other";
  return { verdict, verifier: how, receipt };
}
