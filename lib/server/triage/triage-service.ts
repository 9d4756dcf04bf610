import type { TriageItemView } from "@/lib/dashboard/api-types";
import type { TriageActionBody } from "@/lib/triage/schemas";
import { applyTriageAction, UNTOUCHED_ITEM } from "@/lib/triage/transitions";
import { toTriageItemView } from "@/lib/triage/view";
import { resolveChainAlertsInTransaction } from "../routing/operator-resolve";
import { lockChains } from "../db/chain-writes";
import { getPrisma } from "../db/client";
import { prismaSql } from "../db/sql";
import { insertTriageEvent, lockTriageItem, readChainStates, saveTriageItem } from "../db/triage-items";
import { ApiError, notFound } from "../http/api-error";
import { actorName, type Caller } from "../http/authenticate";
import { rejectSecrets } from "../http/reject-secrets";

/** Acknowledge, assign, note, resolve or reopen a chain's item in one queue; who and when go to the audit trail. */
export async function triageChain(
  chainId: string,
  body: TriageActionBody,
  caller: Caller,
  now = new Date(),
): Promise<TriageItemView> {
  rejectSecrets([
    ["$.note", body.note],
    ["$.owner", body.action === "assign" ? body.owner : null],
  ]);
  return changeTriageItem(chainId, body, actorName(caller), now);
}

/**
 * One triage decision, atomically: the chain and its item are read under locks, the pure transition decides the
 * next item and the audit event, both are written. A chain may be triaged in a queue while it is in that queue (by
 * state or shadowed state), or later if it already has an item there (to note or reopen after it moved on).
 */
async function changeTriageItem(
  chainId: string,
  body: TriageActionBody,
  actor: string,
  now: Date,
): Promise<TriageItemView> {
  const queue = body.queue;
  return getPrisma().$transaction(async (tx) => {
    // The chain's lock first, as every writer of its state and alerts takes it: no lock-order deadlock with
    // ingestion or reconciliation.
    await lockChains(prismaSql(tx), [chainId]);
    const chain = await readChainStates(tx, chainId);
    if (!chain) throw notFound("chain");
    const stored = await lockTriageItem(tx, chainId, queue);
    const inQueue = chain.state === queue || chain.shadowedState === queue;
    if (!inQueue && !stored) {
      throw new ApiError(409, "not_in_queue", `the chain is not in the ${queue} queue`, [
        { path: "$.queue", code: "not_in_queue", message: `chain state is ${chain.state}` },
      ]);
    }
    const outcome = applyTriageAction(stored ?? UNTOUCHED_ITEM, body, actor, now);
    if ("refused" in outcome) {
      throw new ApiError(409, "invalid_transition", outcome.refused, [
        { path: "$.action", code: "invalid_transition", message: outcome.refused },
      ]);
    }
    const { next, event } = outcome;
    const saved = await saveTriageItem(tx, chainId, queue, next);
    await insertTriageEvent(tx, { chainId, queue, actor, ...event });
    // Resolving the item resolves the queue state's alert too, in the same transaction (receivers get "resolved").
    if (next.status === "resolved" && stored?.status !== "resolved") {
      await resolveChainAlertsInTransaction(tx, chainId, actor, [queue]);
    }
    return toTriageItemView(saved);
  });
}
