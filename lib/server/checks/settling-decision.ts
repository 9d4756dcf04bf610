import type { CheckDecision } from "@/lib/checks/decide";
import type { TCheck } from "@/lib/checks/config";

/** The decision that settles an effect: every decisive check agrees (committed or absent); disagreement settles nothing. */
export function settlingDecision(
  decisions: { check: TCheck; decision: CheckDecision }[],
): { check: TCheck; decision: CheckDecision } | null {
  const decisive = decisions.filter(({ decision }) => decision.effect !== "unknown");
  const [first] = decisive;
  if (!first) return null;
  return decisive.every(({ decision }) => decision.effect === first.decision.effect) ? first : null;
}
