"use client";

import { useState } from "react";
import type { KeySummary } from "@/lib/dashboard/api-types";
import { useKeys } from "../api/queries";
import { useRevokeKey } from "../api/mutations";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { Time } from "../ui/Time";
import styles from "./Keys.module.css";

/** Every key, active first. Revoking asks once more, since the agent using it stops at its next request. */
export function KeyTable() {
  const keys = useKeys();
  if (keys.isPending) return <LoadingState label="Loading keys" />;
  if (keys.isError) return <ErrorState error={keys.error} what="keys" onRetry={() => keys.refetch()} />;
  if (keys.data.keys.length === 0) {
    return (
      <div className="panel">
        <EmptyState title="No ingestion keys yet">
          <p>
            Create one above, or with <code>npm run --silent keys -- create --name NAME</code>.
          </p>
        </EmptyState>
      </div>
    );
  }
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">Ingestion keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Scopes</th>
            <th scope="col" className="hide-narrow">
              Created
            </th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {keys.data.keys.map((key) => (
            <KeyRow key={key.id} apiKey={key} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function KeyRow({ apiKey }: { apiKey: KeySummary }) {
  const revoke = useRevokeKey();
  const [confirming, setConfirming] = useState(false);
  return (
    <tr data-key-name={apiKey.name} className={apiKey.revokedAt ? styles.revoked : undefined}>
      <th scope="row">{apiKey.name}</th>
      <td data-label="Key" className="mono">
        {apiKey.prefix}…
      </td>
      <td data-label="Scopes">{apiKey.scopes.join(", ")}</td>
      <td data-label="Created" className="hide-narrow">
        <Time iso={apiKey.createdAt} />
      </td>
      <td data-label="Last used">
        {apiKey.lastUsedAt ? <Time iso={apiKey.lastUsedAt} /> : <span className="muted">never</span>}
      </td>
      <td data-label="Status">
        {apiKey.revokedAt ? (
          <span>
            revoked <Time iso={apiKey.revokedAt} />
          </span>
        ) : confirming ? (
          <span className={styles.confirm}>
            <button
              type="button"
              className="button small danger"
              onClick={() => revoke.mutate(apiKey.name)}
              disabled={revoke.isPending}
            >
              Revoke {apiKey.name} now
            </button>
            <button type="button" className="button small" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <span className={styles.confirm}>
            <span className={styles.active}>active</span>
            <button type="button" className="button small danger" onClick={() => setConfirming(true)}>
              Revoke…
            </button>
          </span>
        )}
        {revoke.isError && <span className="field-error"> {revoke.error.message}</span>}
      </td>
    </tr>
  );
}
