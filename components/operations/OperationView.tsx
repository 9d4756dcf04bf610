"use client";

import Link from "next/link";
import { useOperation } from "../api/operations";
import { StateBadge } from "../state/StateBadge";
import { SettleLease } from "./SettleLease";
import { ErrorState, LoadingState } from "../ui/StatusViews";

const STATUS_TEXT: Record<string, string> = {
  none: "never seen: a retry may proceed",
  in_flight: "in flight: an attempt holds a live lease or is still running",
  in_doubt: "in doubt: reconcile the attempts below (check the destination) before any retry",
  absent: "every attempt proven not to have written: a retry may proceed",
  committed: "committed: an attempt's write happened, never repeat it",
};

/**
 * /operations/[key]: everything Receipt knows about one operation key — its derived status, its attempts in time
 * order (each chain links to its page, where an in-doubt one is reconciled), the lease, and every guard decision.
 */
export function OperationView({ operationKey }: { operationKey: string }) {
  const operation = useOperation(operationKey);
  if (operation.isPending) return <LoadingState label="Loading the operation" rows={4} />;
  if (operation.isError)
    return <ErrorState error={operation.error} what="this operation" onRetry={() => operation.refetch()} />;
  const { status, attempts, lease, decisions, tool, server } = operation.data;
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <p className="muted">Operation</p>
          <h1 className="mono" style={{ wordBreak: "break-all" }}>
            {operationKey}
          </h1>
        </div>
        <p data-testid="operation-status">
          <strong>{status}</strong> — {STATUS_TEXT[status]}
          {tool && (
            <>
              {" "}
              · tool <span className="mono">{tool}</span>
              {server && (
                <>
                  {" "}
                  on <span className="mono">{server}</span>
                </>
              )}
            </>
          )}
        </p>
      </div>
      <section aria-labelledby="operation-attempts">
        <h2 id="operation-attempts">
          {attempts.length} attempt{attempts.length === 1 ? "" : "s"}, oldest first
        </h2>
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Attempts of this operation</caption>
            <thead>
              <tr>
                <th scope="col">Chain</th>
                <th scope="col">State</th>
                <th scope="col">Effect</th>
                <th scope="col">Deciding reason</th>
                <th scope="col">Observed</th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((attempt) => (
                <tr key={attempt.chainId}>
                  <td data-label="Chain" className="mono">
                    <Link href={`/chains/${encodeURIComponent(attempt.chainId)}`}>{attempt.chainId}</Link>
                  </td>
                  <td data-label="State">
                    <StateBadge state={attempt.state} />
                  </td>
                  <td data-label="Effect">{attempt.effect}</td>
                  <td data-label="Deciding reason" className="mono">
                    {attempt.reasons[0] ?? ""}
                  </td>
                  <td data-label="Observed">{new Date(attempt.at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="operation-lease">
        <h2 id="operation-lease">Lease</h2>
        {lease ? (
          <p>
            {lease.state} · held by <span className="mono">{lease.holder}</span> · granted{" "}
            {new Date(lease.grantedAt).toLocaleString()} until {new Date(lease.leaseUntil).toLocaleString()}
          </p>
        ) : (
          <p className="muted">No lease was ever granted.</p>
        )}
      </section>
      {lease ? <SettleLease operationKey={operationKey} lease={lease} /> : null}
      <section aria-labelledby="operation-decisions">
        <h2 id="operation-decisions">Guard decisions, oldest first</h2>
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Every retry-guard decision on this operation</caption>
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">Decision</th>
                <th scope="col">Status then</th>
                <th scope="col">Holder</th>
                <th scope="col">Asked with</th>
              </tr>
            </thead>
            <tbody>
              {decisions.map((decision) => (
                <tr key={decision.id}>
                  <td data-label="At">{new Date(decision.at).toLocaleString()}</td>
                  <td data-label="Decision">{decision.decision}</td>
                  <td data-label="Status then">{decision.status}</td>
                  <td data-label="Holder" className="mono">
                    {decision.holder}
                  </td>
                  <td data-label="Asked with" className="mono">
                    {decision.actor}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
