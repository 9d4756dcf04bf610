// The background job that reconciles without a person: chains whose effect is unknown, unverified calls a check can
// verify, and leases that expired with no record get their matching destination checks run. What no check settled is
// looked at again after a pause, not on every tick. One instance at a time runs it (an advisory lock), so two never
// read a destination twice at once.
import { listChainsAwaitingChecks, listUnverifiedAwaitingChecks } from "../db/check-runs";
import { failureReason } from "../db/isolated-writes";
import { withJobLock } from "../db/job-lock";
import { env } from "../env";
import { listUnsettledExpiredLeases } from "../db/operations-store";
import { poolSql } from "../db/sql";
import { ApiError } from "../http/api-error";
import { type CheckTrigger, checkChain } from "./check-chain-service";
import { assertsOutcome } from "./settling-decision";
import { checkOperation } from "./check-operation-service";
import { currentChecks } from "./checks-config-service";

/** Chains one run checks at most; true (work left) makes the runner go again at once. */
const BATCH = 20;

export async function checkUnknownEffects(now = new Date()): Promise<boolean> {
  const { checks } = await currentChecks();
  if (checks.length === 0) return false;
  return withJobLock("receipt:check-job", false, async () => {
    const lookedBefore = new Date(now.getTime() - env().RECEIPT_CHECKS_RECHECK_MS);
    const chains = await listChainsAwaitingChecks(lookedBefore, BATCH);
    for (const chainId of chains) await checkLogged(chainId, "effect_unknown");
    // Calls nobody verified, for the checks that read the deliverable back: a verdict makes them healthy or a
    // false success, which is what an outcome incident needs to page.
    const verifying = checks
      .filter(assertsOutcome)
      .map((check) => ({ server: check.match.server ?? null, tool: check.match.tool ?? null }));
    const unverified = await listUnverifiedAwaitingChecks(verifying, lookedBefore, BATCH);
    for (const chainId of unverified) await checkLogged(chainId, "unverified");
    // Leases that expired with no record: an agent that died after sending leaves no chain to reconcile.
    const leases = await listUnsettledExpiredLeases(poolSql(), lookedBefore, BATCH);
    for (const { key } of leases) {
      await checkOperation(key, "in_doubt").catch((error) => {
        if (!(error instanceof ApiError))
          console.error(`receipt: destination checks of ${key} failed:`, failureReason(error));
      });
    }
    return chains.length === BATCH || unverified.length === BATCH || leases.length === BATCH;
  });
}

async function checkLogged(chainId: string, trigger: CheckTrigger): Promise<void> {
  await checkChain(chainId, trigger).catch((error) =>
    console.error(`receipt: destination checks of ${chainId} failed:`, failureReason(error)),
  );
}
