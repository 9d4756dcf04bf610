import { matchSecretPattern } from "@/lib/contract";
import type { ReconcileResult, TriageItemView } from "@/lib/dashboard/api-types";
import { reconcileChain } from "../db/reconcile-chain";
import { changeTriageItem } from "../db/triage-items";
import { ApiError } from "../http/api-error";
import { actorName, type Caller } from "../http/authenticate";
import type { ReconcileBody, TriageActionBody } from "./triage-schemas";
import { applyTriageAction } from "./triage-transitions";

/**
 * Notes, owners and receipts are free text typed by people, and they land in the audit trail and in alert
 * payloads: the same credential guard as records (contract §5) applies, and the value is never echoed back.
 */
function rejectSecrets(fields: Record<string, string | null | undefined>) {
  const hits = Object.entries(fields).flatMap(([field, value]) => {
    const pattern = value ? matchSecretPattern(value) : undefined;
    return pattern
      ? [{ path: `$.${field}`, code: "secret_detected", message: `looks like a credential (${pattern})` }]
      : [];
  });
  if (hits.length > 0) {
    throw new ApiError(422, "secret_detected", "a field contains a credential; nothing was stored", hits);
  }
}

/** Acknowledge, assign, note, resolve or reopen a chain's item in one queue; who and when go to the audit trail. */
export async function triageChain(
  chainId: string,
  body: TriageActionBody,
  caller: Caller,
  now = new Date(),
): Promise<TriageItemView> {
  rejectSecrets({ note: body.note, owner: body.action === "assign" ? body.owner : null });
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
  rejectSecrets({ receipt, note: body.note });
  return reconcileChain({
    chainId,
    status: body.status,
    receipt,
    note: body.note ?? null,
    actor: actorName(caller),
    now,
  });
}
