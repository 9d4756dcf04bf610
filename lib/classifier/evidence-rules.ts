import type { Call, EffectEvidence, OutcomeEvidence } from "../contract/record";
import { type Decision, decide, toMs } from "./decision";
import { REASONS, type ReasonCode } from "./reasons";

export type UsableEvidence = { effect?: EffectEvidence; outcome?: OutcomeEvidence };

/**
 * Rule 16: destination or verifier evidence checked before the call started says nothing
 * about this call, so it is ignored (and the ignoring is reported on the path).
 */
export function usableEvidence(call: Call, startedMs: number, pathCodes: ReasonCode[]): UsableEvidence {
  const usable: UsableEvidence = {};
  if (call.effect !== undefined) {
    if (toMs(call.effect.checkedAt) >= startedMs) usable.effect = call.effect;
    else pathCodes.push(REASONS.EFFECT_CHECKED_BEFORE_CALL);
  }
  if (call.outcome !== undefined) {
    if (toMs(call.outcome.checkedAt) >= startedMs) usable.outcome = call.outcome;
    else pathCodes.push(REASONS.OUTCOME_CHECKED_BEFORE_CALL);
  }
  return usable;
}

/** Rule 17: no definitive result. Only destination evidence can settle what a write did. */
export function decideUnfinished(call: Call, evidence: UsableEvidence, pathCodes: ReasonCode[]): Decision {
  if (call.sideEffect === "none")
    return decide("tool_failed", REASONS.REQUEST_UNFINISHED_READ_ONLY, pathCodes);
  const status = evidence.effect?.status;
  if (status === "absent") return decide("tool_failed", REASONS.EFFECT_ABSENT, pathCodes);
  if (status === "committed") return decideEffectAndOutcome(call, evidence, pathCodes);
  return decide("effect_unknown", REASONS.EFFECT_UNRECONCILED, pathCodes);
}

/** Rules 19–22: after a successful result, or an unfinished write the destination shows committed. */
export function decideEffectAndOutcome(
  call: Call,
  evidence: UsableEvidence,
  pathCodes: ReasonCode[],
): Decision {
  const { effect, outcome } = evidence;
  // 19. "unknown" = the check ran but could not tell: it decides nothing, the outcome does.
  if (call.sideEffect !== "none" && effect?.status === "absent") {
    return decide("false_success", REASONS.EFFECT_ABSENT, pathCodes);
  }
  // 20.
  if (outcome === undefined) {
    const reason = call.expectedVerifier === undefined ? REASONS.OUTCOME_NO_RECEIPT : REASONS.OUTCOME_PENDING;
    return decide("unverified", reason, pathCodes);
  }
  if (outcome.verdict === "unavailable") return decide("unverified", REASONS.OUTCOME_UNAVAILABLE, pathCodes);
  // 21.
  if (outcome.verdict === "fail") return decide("false_success", REASONS.OUTCOME_VERIFIER_FAILED, pathCodes);
  // 22. A model's judgement is a receipt, but a weaker one than a hash, a row or a test.
  if (outcome.verifier === "llm_judge") {
    return {
      ...decide("healthy", REASONS.OUTCOME_VERIFIED, [...pathCodes, REASONS.OUTCOME_WEAK_EVIDENCE]),
      evidence: "weak",
    };
  }
  return { ...decide("healthy", REASONS.OUTCOME_VERIFIED, pathCodes), evidence: "strong" };
}
