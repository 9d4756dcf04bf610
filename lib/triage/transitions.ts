import type { AssigneeView, TriageStatus } from "@/lib/dashboard/api-types";
import type { TriageActionBody } from "./schemas";

export type TriageItemState = {
  status: TriageStatus;
  assignee: AssigneeView | null;
  acknowledgedAt: Date | null;
  acknowledgedBy: string | null;
  resolvedAt: Date | null;
  resolvedBy: string | null;
};

export const UNTOUCHED_ITEM: TriageItemState = {
  status: "open",
  assignee: null,
  acknowledgedAt: null,
  acknowledgedBy: null,
  resolvedAt: null,
  resolvedBy: null,
};

/** A triage action whose assignee id the service has already checked against the team and turned into a user. */
export type TriageDecision =
  | Exclude<TriageActionBody, { action: "assign" }>
  | { action: "assign"; queue: TriageActionBody["queue"]; assignee: AssigneeView; note?: string };

export type TriageOutcome = {
  next: TriageItemState;
  event: { action: string; note: string | null; data: Record<string, string | null> };
};

/** An action the item's state does not allow; the service answers it as a 409 at `$.action`. */
export type TriageRefusal = { refused: string };

const conflict = (message: string): TriageRefusal => ({ refused: message });

/**
 * The triage workflow as a pure function (open → acknowledged → resolved, reopen from resolved; assignee and notes
 * at any time). Refusing a no-op (acknowledging twice) keeps the audit trail honest: every event changed something.
 */
export function applyTriageAction(
  current: TriageItemState,
  body: TriageDecision,
  actor: string,
  now: Date,
): TriageOutcome | TriageRefusal {
  const note = body.note ?? null;
  const statusChange = (to: TriageStatus) => ({ from: current.status, to });
  const from = current.assignee?.username ?? null;
  switch (body.action) {
    case "acknowledge":
      if (current.status !== "open")
        return conflict(`only an open item can be acknowledged (it is ${current.status})`);
      return {
        next: { ...current, status: "acknowledged", acknowledgedAt: now, acknowledgedBy: actor },
        event: { action: "acknowledge", note, data: statusChange("acknowledged") },
      };
    case "assign":
      if (current.assignee?.id === body.assignee.id)
        return conflict(`the item is already assigned to ${body.assignee.username}`);
      return {
        next: { ...current, assignee: body.assignee },
        event: { action: "assign", note, data: { from, to: body.assignee.username } },
      };
    case "unassign":
      if (!current.assignee) return conflict("the item is assigned to nobody");
      return {
        next: { ...current, assignee: null },
        event: { action: "unassign", note, data: { from, to: null } },
      };
    case "note":
      return { next: current, event: { action: "note", note: body.note, data: {} } };
    case "resolve":
      if (current.status === "resolved") return conflict("the item is already resolved");
      return {
        next: { ...current, status: "resolved", resolvedAt: now, resolvedBy: actor },
        event: { action: "resolve", note, data: statusChange("resolved") },
      };
    case "reopen":
      if (current.status !== "resolved") return conflict("only a resolved item can be reopened");
      return {
        next: { ...current, status: "open", resolvedAt: null, resolvedBy: null },
        event: { action: "reopen", note, data: statusChange("open") },
      };
  }
}
