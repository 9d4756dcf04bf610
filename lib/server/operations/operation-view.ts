import {
  type AttemptFacts,
  attemptEffect,
  type LeaseFacts,
  leaseState,
  operationStatus,
} from "@/lib/operations/status";
import type { AttemptView, DecisionView, LeaseView, OperationView } from "@/lib/operations/views";
import type { DecisionEntry } from "../db/operations-store";

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
    settled: lease.settled ? { ...lease.settled, at: lease.settled.at.toISOString() } : null,
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
  id: entry.id.toString(),
  leaseUntil: entry.leaseUntil?.toISOString() ?? null,
  at: entry.at.toISOString(),
});
