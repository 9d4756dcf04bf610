import type { AssigneeView, QueueName } from "@/lib/dashboard/api-types";
import type { ProblemResolution, ProblemTuple } from "./types";

// One lifecycle across problem, triage item and alert (docs/ARCHITECTURE.md, "One lifecycle"): what a resolve
// changed, kept so its undo restores exactly that, and the sentence that says what it did.

/** At most this many problems in one bulk resolve (`$.keys`). */
export const MAX_BULK_PROBLEMS = 100;
/** At most this many queue items plus alerts below the problems of one resolve: past it, 409 `cascade_too_large`. */
export const MAX_CASCADE = 10_000;
/** An undo is offered this long after the resolve; later, 409 `undo_expired`. The UI shows it for a few seconds. */
export const UNDO_WINDOW_MS = 10 * 60_000;

/** A triage item's fields a resolve sets, as they were (null: the chain had no item, it was untouched and open). */
export type ItemSnapshot = {
  status: string;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  resolvedAt: string | null;
  resolvedBy: string | null;
};

/** An alert's fields a resolve sets. */
export type AlertSnapshot = { status: string; endsAt: string | null; resolvedBy: string | null };

/** Everything one resolve changed, each with its state before and after: what an undo checks and restores. */
export type LifecycleChanges = {
  /** What the resolve was asked for: the problems' keys, or the chain whose item it was. */
  asked: string[];
  problems: {
    key: string;
    tuple: ProblemTuple;
    before: ProblemResolution | null;
    after: ProblemResolution;
  }[];
  items: { chainId: string; queue: QueueName; before: ItemSnapshot | null; after: ItemSnapshot }[];
  alerts: { fingerprint: string; chainId: string; before: AlertSnapshot; after: AlertSnapshot }[];
};

export type ResolvedCounts = { problems: number; items: number; alerts: number };

/** What a resolve answers beside its own result: what it did, in numbers and in a sentence, and how to undo it. */
export type LifecycleOutcome = {
  resolved: ResolvedCounts;
  message: string;
  /** Null when nothing changed (nothing to undo). */
  undo: { id: string; expiresAt: string } | null;
};

/** What hangs below problems: what a resolve with `cascade` would also resolve (the confirmation's numbers). */
export type ProblemsBelow = {
  /** Problems not resolved yet among those asked for. */
  problems: number;
  items: number;
  alerts: number;
  /** More than MAX_CASCADE items and alerts: a cascade would be refused. */
  tooMany: boolean;
};

export type UndoOutcome = { id: string; restored: ResolvedCounts; message: string };

export type ProblemAssigneeResult = { key: string; assignee: AssigneeView | null };

export const countChanges = (changes: LifecycleChanges): ResolvedCounts => ({
  problems: changes.problems.length,
  items: changes.items.length,
  alerts: changes.alerts.length,
});

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;

/** "1 problem, 12 queue items and 3 alerts" (the parts that are not zero; "nothing" when all are). */
export function countsText(counts: ResolvedCounts): string {
  const parts = [
    counts.problems > 0 ? plural(counts.problems, "problem", "problems") : null,
    counts.items > 0 ? plural(counts.items, "queue item", "queue items") : null,
    counts.alerts > 0 ? plural(counts.alerts, "alert", "alerts") : null,
  ].filter((part): part is string => part !== null);
  if (parts.length === 0) return "nothing";
  if (parts.length === 1) return parts[0] as string;
  return `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

export const resolvedMessage = (counts: ResolvedCounts) =>
  counts.problems + counts.items + counts.alerts === 0
    ? "Nothing to resolve: it was resolved already"
    : `Resolved ${countsText(counts)}`;

export const undoneMessage = (counts: ResolvedCounts) => `Undone: reopened ${countsText(counts)}`;

/** The confirmation's question before a cascade: "Also resolve 12 queue items and 3 alerts?"; null when none hang below. */
export function cascadeQuestion(below: Pick<ProblemsBelow, "items" | "alerts">): string | null {
  if (below.items + below.alerts === 0) return null;
  return `Also resolve ${countsText({ problems: 0, items: below.items, alerts: below.alerts })}?`;
}

/** The current state of what a resolve changed, read back under the chains' locks for its undo. */
export type CurrentStates = {
  problems: Map<string, ProblemResolution | null>;
  items: Map<string, ItemSnapshot | null>;
  alerts: Map<string, AlertSnapshot | null>;
};

export const itemId = (chainId: string, queue: string) => `${chainId}\u0000${queue}`;

export type UndoConflict = { path: string; message: string };

/**
 * What changed since the resolve, each at its JSON path in the resolve's changes: an undo restores only what is
 * still as the resolve left it, all or nothing. A regression does not count: the resolution row is what the resolve
 * wrote, and it is still there.
 */
export function undoConflicts(changes: LifecycleChanges, current: CurrentStates): UndoConflict[] {
  const conflicts: UndoConflict[] = [];
  changes.problems.forEach((change, index) => {
    const now = current.problems.get(change.key) ?? null;
    if (!now || now.resolvedAt !== change.after.resolvedAt || now.resolvedBy !== change.after.resolvedBy)
      conflicts.push({
        path: `$.problems[${index}]`,
        message: now ? `the problem was resolved again by ${now.resolvedBy}` : "the problem was reopened",
      });
  });
  changes.items.forEach((change, index) => {
    const now = current.items.get(itemId(change.chainId, change.queue)) ?? null;
    if (now?.status !== "resolved" || now.resolvedAt !== change.after.resolvedAt)
      conflicts.push({
        path: `$.items[${index}]`,
        message: `chain ${change.chainId}'s ${change.queue} item is ${now?.status ?? "gone"} since`,
      });
  });
  changes.alerts.forEach((change, index) => {
    const now = current.alerts.get(change.fingerprint) ?? null;
    if (now?.status !== "resolved" || now.endsAt !== change.after.endsAt)
      conflicts.push({
        path: `$.alerts[${index}]`,
        message:
          now?.status === "firing"
            ? `alert ${change.fingerprint} fired again`
            : `alert ${change.fingerprint} changed`,
      });
  });
  return conflicts;
}
