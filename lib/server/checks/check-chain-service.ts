// Runs the destination checks that match a chain and, when they settle an effect Receipt could not see, reconciles
// the chain with their result as evidence (actor `check:<name>`): the chain is classified again, its alert resolves or
// changes, its effect-unknown item closes, and the retry guard's answer for its operation key follows.
import { checkMatches } from "@/lib/checks/decide";
import type { CheckRunView, ChainChecksAnswer } from "@/lib/dashboard/api-types";
import { getPrisma } from "../db/client";
import { type CheckRunRow, insertCheckRuns, listCheckRuns } from "../db/check-runs";
import { readReconcileHead } from "../db/triage-items";
import { ApiError, notFound } from "../http/api-error";
import { metrics } from "../metrics/registry";
import { reconcileChain } from "../triage/reconcile-service";
import { currentChecks } from "./checks-config-service";
import { type CheckEnv, runCheck } from "./run-check";
import { settlingDecision } from "./settling-decision";

export type CheckTrigger = "on_demand" | "effect_unknown";

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
 * the background job passes only chains it found in effect_unknown.
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
  const checks = (await currentChecks()).checks.filter((check) => checkMatches(check, facts));
  if (checks.length === 0) {
    if (trigger === "effect_unknown") {
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
  const settledBy = settlingDecision(decisions);
  const unknownEffect = head.state === "effect_unknown" || head.shadowedState === "effect_unknown";
  let reconciledBy: string | null = null;
  if (settledBy && unknownEffect) {
    const actor = `check:${settledBy.check.name}`;
    try {
      await reconcileChain({
        chainId,
        status: settledBy.decision.effect as "committed" | "absent",
        receipt: settledBy.decision.effect === "committed" ? `${actor} ${settledBy.decision.receipt}` : null,
        note: `destination check ${settledBy.check.name}: ${settledBy.decision.receipt}`,
        actor,
        auditActor: { actorUserId: null, actor },
        now: now(),
      });
      reconciledBy = settledBy.check.name;
    } catch (error) {
      // Another writer settled the chain meanwhile (an operator, another instance's run): the runs still count.
      if (!(error instanceof ApiError && error.code === "not_effect_unknown")) throw error;
    }
  }
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
