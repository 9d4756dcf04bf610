import type { ReconcileResult, TriageItemView } from "@/lib/dashboard/api-types";
import { reconcileChain } from "../db/reconcile-chain";
import { changeTriageItem } from "../db/triage-items";
import { rejectSecrets } from "../http/reject-secrets";
import { actorName, type Caller } from "../http/authenticate";
import type { ReconcileBody, TriageActionBody } from "./triage-schemas";
import { applyTriageAction } from "./triage-transitions";

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
  const actor = actorName(caller);
  return changeTriageItem(chainId, body.queue, actor, (current) =>
    applyTriageAction(current, body, actor, now),
  );
}

/** Records what the destination shows for an effect-unknown chain and re-classifies the chain with it. */
export async function reconcile(
  chainId: string,
  body: ReconcileBody,
  caller: Caller,
  now = new Date(),
): Promise<ReconcileResult> {
  const receipt = body.status === "committed" ? body.receipt : null;
  rejectSecrets([
    ["$.receipt", receipt],
    ["$.note", body.note],
  ]);
  return reconcileChain({
    chainId,
    status: body.status,
    receipt,
    note: body.note ?? null,
    actor: actorName(caller),
    now,
  });
}
