import type { ChainTriage, OperatorEffectView, TriageEventView } from "@/lib/dashboard/api-types";
import { storedOutcome } from "@/lib/chains/operator-evidence";
import { getPrisma } from "./client";
import { ITEM_WITH_ASSIGNEE } from "./triage-items";
import { toTriageItemView } from "@/lib/triage/view";

const MAX_EVENTS = 500;

/** A chain's triage items, its audit trail (oldest first) and the destination evidence operators recorded. */
export async function readChainTriage(chainId: string): Promise<ChainTriage | null> {
  const prisma = getPrisma();
  const [exists, items, events, effects] = await Promise.all([
    prisma.chain.findUnique({ where: { chainId }, select: { chainId: true } }),
    prisma.triageItem.findMany({ where: { chainId }, orderBy: { queue: "asc" }, ...ITEM_WITH_ASSIGNEE }),
    prisma.triageEvent.findMany({ where: { chainId }, orderBy: { id: "desc" }, take: MAX_EVENTS }),
    prisma.operatorEffect.findMany({ where: { chainId }, orderBy: [{ checkedAt: "asc" }, { id: "asc" }] }),
  ]);
  if (!exists) return null;
  return {
    items: items.map(toTriageItemView),
    events: events.reverse().map(
      (event): TriageEventView => ({
        id: event.id.toString(),
        chainId: event.chainId,
        queue: event.queue,
        actor: event.actor,
        action: event.action,
        note: event.note,
        data: (event.data as Record<string, unknown> | null) ?? null,
        at: event.at.toISOString(),
      }),
    ),
    operatorEffects: effects.map(
      (effect): OperatorEffectView => ({
        id: effect.id.toString(),
        status: effect.status as OperatorEffectView["status"],
        receipt: effect.receipt,
        checkedAt: effect.checkedAt.toISOString(),
        actor: effect.actor,
        note: effect.note,
        outcome: storedOutcome(effect.outcomeVerdict, effect.outcomeVerifier, effect.outcomeReceipt),
      }),
    ),
  };
}
