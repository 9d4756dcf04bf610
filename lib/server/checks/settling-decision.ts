import type { OperatorOutcome } from "@/lib/chains/operator-evidence";
import type { CheckDecision } from "@/lib/checks/decide";
import type { TCheck } from "@/lib/checks/config";

type Run = { check: TCheck; decision: CheckDecision };

/** The decision that settles an effect: every decisive check agrees (committed or absent); disagreement settles nothing. */
export function settlingDecision(decisions: Run[]): Run | null {
  const decisive = decisions.filter(({ decision }) => decision.effect !== "unknown");
  const [first] = decisive;
  if (!first) return null;
  return decisive.every(({ decision }) => decision.effect === first.decision.effect) ? first : null;
}

/**
 * The deliverable's verdict among checks that agree the effect is committed: one check that reads it wrong is a
 * false success whatever the others say (as a failed test fails a suite), so `fail` wins over `pass`.
 */
export function settlingOutcome(decisions: Run[]): (OperatorOutcome & { check: TCheck }) | null {
  const asserted = decisions.filter(({ decision }) => decision.effect === "committed" && decision.outcome);
  const chosen = asserted.find(({ decision }) => decision.outcome === "fail") ?? asserted[0];
  if (!chosen?.decision.outcome) return null;
  return {
    check: chosen.check,
    verdict: chosen.decision.outcome,
    verifier: chosen.check.sql ? "db_row" : "http_status",
    receipt: `check:${chosen.check.name} ${chosen.decision.receipt}`,
  };
}

/** Whether a check reads the deliverable back (asserts the outcome), which is what verifies an `unverified` call. */
export const assertsOutcome = (check: TCheck): boolean => Boolean(check.http?.outcome ?? check.sql?.outcome);
