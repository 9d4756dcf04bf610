// Runs the destination checks that match a chain and, when they settle an effect Receipt could not see, reconciles
// the chain with their result as evidence (actor `check:<name>`): the chain is classified again, its alert resolves or
// changes, its effect-unknown item closes, and the retry guard's answer for its operation key follows.
import type { ReconcileHead, SettledBy } from "@/lib/chains/reconcile";
import type { TCheck } from "@/lib/checks/config";
import { type CheckDecision, checkMatches } from "@/lib/checks/decide";
import type { CheckRunView, ChainChecksAnswer } from "@/lib/dashboard/api-types";
import { getPrisma } from "../db/client";
import { type CheckRunRow, insertCheckRuns, listCheckRuns } from "../db/check-runs";
import { readReconcileHead } from "../db/triage-items";
import { ApiError, notFound } from "../http/api-error";
import { metrics } from "../metrics/registry";
import { reconcileChain } from "../triage/reconcile-service";
import { currentChecks } from "./checks-config-service";
import { type CheckEnv, runCheck } from "./run-check";
import { assertsOutcome, settlingDecision, settlingOutcome } from "./settling-decision";

/** Why a chain was checked: a person asked, or the job found its effect unknown or its call unverified. */
export type CheckTrigger = "on_demand" | "effect_unknown" | "unverified";

const NO_MATCH = {
  checkName: "",
  effect: "unknown",
  outcome: null,
  receipt: "no check matches",
  reconciled: false,
};

const view = (run: CheckRunRow): CheckRunView => ({
  check: run.checkName,
  trigger: run.trigger as CheckTrigger,
  effect: run.effect as CheckRunView["effect"],
  outcome: run.outcome as CheckRunView["outcome"],
  receipt: run.receipt,
  reconciled: run.reconciled,
  at: run.at.toISOString(),
});

export async function chainCheckRuns(chainId: string): Promise<ChainChecksAnswer> {
  return { runs: (await listCheckRuns(chainId)).map(view) };
}

/**
 * Checks one chain now. `on_demand` (the chain page's "Check destination now") refuses with 422 when no check matches;
 * the background job passes chains it found in effect_unknown, and unverified calls for the checks that read the
 * deliverable back (assert the outcome).
 */
export async function checkChain(
  chainId: string,
  trigger: CheckTrigger,
  env: CheckEnv = process.env,
  now: () => Date = () => new Date(),
): Promise<ChainChecksAnswer> {
  const head = await readReconcileHead(getPrisma(), chainId);
  if (!head) throw notFound("chain");
  const record = head.record;
  const facts = {
    server: record.session.server?.name ?? null,
    tool: record.call?.tool ?? null,
    labels: record.labels ?? {},
  };
  const checks = (await currentChecks()).checks.filter(
    (check) => checkMatches(check, facts) && (trigger !== "unverified" || assertsOutcome(check)),
  );
  if (checks.length === 0) {
    if (trigger !== "on_demand") {
      // Marked as looked at (a run with no check's name, never shown), so the job moves on to other chains.
      await insertCheckRuns([{ ...NO_MATCH, chainId, trigger, at: now() }]);
      return { runs: [] };
    }
    throw new ApiError(422, "no_matching_check", "no destination check matches this chain", [
      {
        path: "$",
        code: "no_matching_check",
        message: `no check matches server ${facts.server}, tool ${facts.tool}`,
      },
    ]);
  }
  const values = {
    operationKey: record.call?.operationKey ?? null,
    receipt: record.call?.effect?.receipt ?? null,
    labels: facts.labels,
  };
  const decisions = await Promise.all(
    checks.map(async (check) => ({ check, decision: await runCheck(check, values, env) })),
  );
  const reconciledBy = await settleChain(head, decisions, now());
  const at = now();
  for (const { check, decision } of decisions)
    metrics().checkRuns.inc({
      trigger,
      effect: decision.effect,
      reconciled: String(check.name === reconciledBy),
    });
  await insertCheckRuns(
    decisions.map(({ check, decision }) => ({
      chainId,
      checkName: check.name,
      trigger,
      effect: decision.effect,
      outcome: decision.outcome,
      receipt: decision.receipt,
      reconciled: check.name === reconciledBy,
      at,
    })),
  );
  return chainCheckRuns(chainId);
}

/**
 * Records what the checks settled, if anything, and returns the name of the check that did. An unknown effect is
 * settled by checks that agree it is committed or absent (with the verdict when one asserts it); an unverified call
 * by a verdict on its deliverable, or by checks that agree it is absent (a false success). The chain is classified
 * again with that evidence (actor `check:<name>`).
 */
async function settleChain(
  head: ReconcileHead,
  decisions: { check: TCheck; decision: CheckDecision }[],
  at: Date,
): Promise<string | null> {
  const settledBy = settlingDecision(decisions);
  if (!settledBy) return null;
  const unknownEffect = head.state === "effect_unknown" || head.shadowedState === "effect_unknown";
  const outcome = settledBy.decision.effect === "committed" ? settlingOutcome(decisions) : null;
  const settles: SettledBy | null = unknownEffect
    ? "effect_unknown"
    : head.state === "unverified" && (outcome || settledBy.decision.effect === "absent")
      ? "unverified"
      : null;
  if (!settles) return null;
  const check = outcome?.check ?? settledBy.check;
  const actor = `check:${check.name}`;
  const decision = decisions.find((run) => run.check === check)?.decision ?? settledBy.decision;
  try {
    await reconcileChain({
      chainId: head.chainId,
      status: settledBy.decision.effect as "committed" | "absent",
      receipt: settledBy.decision.effect === "committed" ? `${actor} ${decision.receipt}` : null,
      note: `destination check ${check.name}: ${decision.receipt}`,
      actor,
      auditActor: { actorUserId: null, actor },
      now: at,
      outcome: outcome
        ? { verdict: outcome.verdict, verifier: outcome.verifier, receipt: outcome.receipt }
        : null,
      settles,
    });
    return check.name;
  } catch (error) {
    // Another writer settled the chain meanwhile (an operator, another instance's run): the runs still count.
    if (error instanceof ApiError && (error.code === "not_effect_unknown" || error.code === "not_unverified"))
      return null;
    throw error;
  }
}
