import type { AttemptFacts, OperationStatus } from "./status";

/** The retry guard's answer to "may I send this write now?" (docs/ARCHITECTURE.md "Operations"). */
export type GuardDecision = "proceed" | "wait" | "reconcile_first" | "already_committed";

/** One decision per status: the table the guard, its tests and its documentation share. */
export const DECISION_OF_STATUS: Record<OperationStatus, GuardDecision> = {
  none: "proceed",
  absent: "proceed",
  in_flight: "wait",
  in_doubt: "reconcile_first",
  committed: "already_committed",
};

/** HTTP status and error code of each decision; `proceed` and `already_committed` are successes. */
export const DECISION_REPLY: Record<GuardDecision, { status: number; code?: string }> = {
  proceed: { status: 201 },
  wait: { status: 409, code: "operation_in_progress" },
  reconcile_first: { status: 409, code: "operation_in_doubt" },
  already_committed: { status: 200 },
};

export const decide = (status: OperationStatus): GuardDecision => DECISION_OF_STATUS[status];

/** Leases end at most this long after they are granted, whatever the caller asks: one hour. */
export const MAX_LEASE_MS = 3_600_000;

/** How long a `wait` tells the caller to wait: until the live lease ends, at least 1 s, at most 60 s. */
export function retryAfterSeconds(leaseUntil: Date | null, now: Date): number {
  if (!leaseUntil) return 5;
  return Math.min(60, Math.max(1, Math.ceil((leaseUntil.getTime() - now.getTime()) / 1000)));
}

export type Binding = { tool: string; server: string | null };

/**
 * A key names one write to one tool: asking for it with another tool or server is a caller bug (two writes sharing
 * a key would make each other look done), refused before any decision. Compares against the tool and server the
 * key was first guarded with, and the tool and server its attempts' records name.
 */
export function bindingConflict(
  asked: Binding,
  bound: Binding | null,
  attempts: readonly AttemptFacts[],
): { path: string; message: string } | null {
  const tools = [bound?.tool, ...attempts.map((attempt) => attempt.tool)].filter((t) => t != null);
  const other = tools.find((tool) => tool !== asked.tool);
  if (other !== undefined)
    return { path: "$.tool", message: `this operation key belongs to tool "${other}", not "${asked.tool}"` };
  if (asked.server === null) return null;
  const servers = [bound?.server, ...attempts.map((attempt) => attempt.serverName)].filter((s) => s != null);
  const otherServer = servers.find((server) => server !== asked.server);
  if (otherServer !== undefined)
    return {
      path: "$.server",
      message: `this operation key belongs to server "${otherServer}", not "${asked.server}"`,
    };
  return null;
}
