// The background job that reconciles without a person: chains whose effect is unknown get their matching destination
// checks run, and a chain no check settled is looked at again after a pause, not on every tick. One instance at a
// time runs it (an advisory lock), so two instances never read a destination twice for one chain.
import { listChainsAwaitingChecks } from "../db/check-runs";
import { failureReason } from "../db/isolated-writes";
import { withJobLock } from "../db/job-lock";
import { env } from "../env";
import { checkChain } from "./check-chain-service";
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
    return chains.length === BATCH;
  });
}
