// The background job that reconciles without a person: chains whose effect is unknown, and leases that expired with
// no record, get their matching destination checks run; what no check settled is looked at again after a pause, not
// on every tick. One instance at a time runs it (an advisory lock), so two never read a destination twice at once.
import { listChainsAwaitingChecks } from "../db/check-runs";
import { failureReason } from "../db/isolated-writes";
import { withJobLock } from "../db/job-lock";
import { env } from "../env";
import { listUnsettledExpiredLeases } from "../db/operations-store";
import { poolSql } from "../db/sql";
import { ApiError } from "../http/api-error";
import { checkChain } from "./check-chain-service";
import { checkOperation } from "./check-operation-service";
import { currentChecks } from "./checks-config-service";

/** Chains one run checks at most; true (work left) makes the runner go again at once. */
const BATCH = 20;

export async function checkUnknownEffects(now = new Date()): Promise<boolean> {
  if ((await currentChecks()).checks.length === 0) return false;
  return withJobLock("receipt:check-job", false, async () => {
    const lookedBefore = new Date(now.getTime() - env().RECEIPT_CHECKS_RECHECK_MS);
    const chains = await listChainsAwaitingChecks(lookedBefore, BATCH);
    for (const chainId of chains) {
      await checkChain(chainId, "effect_unknown").catch((error) =>
        console.error(`receipt: destination checks of ${chainId} failed:`, failureReason(error)),
      );
    }
    // Leases that expired with no record: an agent that died after sending leaves no chain to reconcile.
    const leases = await listUnsettledExpiredLeases(poolSql(), lookedBefore, BATCH);
    for (const { key } of leases) {
      await checkOperation(key, "in_doubt").catch((error) => {
        if (!(error instanceof ApiError))
          console.error(`receipt: destination checks of ${key} failed:`, failureReason(error));
      });
    }
    return chains.length === BATCH || leases.length === BATCH;
  });
}
