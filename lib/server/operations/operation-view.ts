import type { GuardDecision } from "@/lib/operations/decision";
import {
  type AttemptEffect,
  type AttemptFacts,
  attemptEffect,
  type LeaseFacts,
  type LeaseState,
  leaseState,
  type OperationStatus,
  operationStatus,
} from "@/lib/operations/status";
import type { DecisionEntry } from "../db/operations-store";

export type AttemptView = {
  chainId: string;
  state: string;
  reasons: string[];
  effect: AttemptEffect;
  at: string;
};
export type LeaseView = { holder: string; grantedAt: string; leaseUntil: string; state: LeaseState };
export type DecisionView = {
  decision: GuardDecision;
  status: OperationStatus;
  holder: string;
  tool: string;
  server: string | null;
  leaseUntil: string | null;
  actor: string;
  at: string;
};

export type OperationView = {
  operationKey: string;
  status: OperationStatus;
  tool: string | null;
  server: string | null;
  attempts: AttemptView[];
  lease: LeaseView | null;
  /** The dashboard's page for the operation: its attempts, guard decisions and reconciliations. */
  links: { self: string; page: string };
};

export const operationLinks = (key: string) => ({
  self: `/api/v1/operations/${encodeURIComponent(key)}`,
  page: `/operations/${encodeURIComponent(key)}`,
});

export function attemptView(attempt: AttemptFacts): AttemptView {
  return {
    chainId: attempt.chainId,
    state: attempt.state,
    reasons: [...attempt.reasons],
    effect: attemptEffect(attempt),
    at: attempt.observedAt.toISOString(),
  };
}

export function leaseView(lease: LeaseFacts | null, attempts: AttemptFacts[], now: Date): LeaseView | null {
  if (!lease) return null;
  return {
    holder: lease.holder,
    grantedAt: lease.grantedAt.toISOString(),
    leaseUntil: lease.until.toISOString(),
    state: leaseState(lease, attempts, now),
  };
}

export function operationView(
  key: string,
  binding: { tool: string; server: string | null } | null,
  attempts: AttemptFacts[],
  lease: LeaseFacts | null,
  now: Date,
): OperationView {
  return {
    operationKey: key,
    status: operationStatus(attempts, lease, now),
    tool: binding?.tool ?? attempts.find((a) => a.tool)?.tool ?? null,
    server: binding?.server ?? attempts.find((a) => a.serverName)?.serverName ?? null,
    attempts: attempts.map(attemptView),
    lease: leaseView(lease, attempts, now),
    links: operationLinks(key),
  };
}

export const decisionView = (entry: DecisionEntry): DecisionView => ({
  ...entry,
  leaseUntil: entry.leaseUntil?.toISOString() ?? null,
  at: entry.at.toISOString(),
});
