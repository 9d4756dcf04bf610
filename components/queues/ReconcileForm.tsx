"use client";

import { type FormEvent, useState } from "react";
import type { ReconcileResult } from "@/lib/dashboard/api-types";
import { reasonText } from "@/lib/dashboard/reason-text";
import { ApiClientError } from "../api/http";
import { useReconcile } from "../api/mutations";
import { StateBadge } from "../state/StateBadge";
import styles from "./Queues.module.css";

/**
 * Reconcile: record what the destination shows. It becomes evidence on the chain, which is classified again —
 * committed goes on to the outcome rule, absent makes the call a retry-safe tool failure.
 */
export function ReconcileForm({ chainId }: { chainId: string }) {
  const mutation = useReconcile(chainId);
  const [status, setStatus] = useState<"committed" | "absent">("committed");
  const [receipt, setReceipt] = useState("");
  const [note, setNote] = useState("");

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmedNote = note.trim() || undefined;
    mutation.mutate(
      status === "committed"
        ? { status, receipt: receipt.trim(), note: trimmedNote }
        : { status, note: trimmedNote },
    );
  }
  const error = mutation.error instanceof ApiClientError ? mutation.error : null;

  return (
    <form className={styles.reconcile} onSubmit={submit} aria-labelledby="reconcile-title">
      <h3 id="reconcile-title">Reconcile</h3>
      <p className="muted">
        Look at the destination itself (the row, file or record the write would have made).
      </p>
      <fieldset>
        <legend>The destination shows</legend>
        <label>
          <input
            type="radio"
            name="status"
            value="committed"
            checked={status === "committed"}
            onChange={() => setStatus("committed")}
          />{" "}
          the write is there (committed)
        </label>
        <label>
          <input
            type="radio"
            name="status"
            value="absent"
            checked={status === "absent"}
            onChange={() => setStatus("absent")}
          />{" "}
          nothing: the write did not happen (absent)
        </label>
      </fieldset>
      {status === "committed" && (
        <div className="field">
          <label htmlFor="reconcile-receipt">Receipt (the destination's identifier, no secrets)</label>
          <input
            id="reconcile-receipt"
            value={receipt}
            onChange={(e) => setReceipt(e.target.value)}
            placeholder="reports/42@v3"
            maxLength={256}
            required
          />
          {error?.issueAt("$.receipt") && <span className="field-error">{error.issueAt("$.receipt")}</span>}
        </div>
      )}
      <div className="field">
        <label htmlFor="reconcile-note">Note (optional)</label>
        <input id="reconcile-note" value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} />
      </div>
      <button
        type="submit"
        className="button primary"
        disabled={mutation.isPending || (status === "committed" && !receipt.trim())}
      >
        {mutation.isPending ? "Recording…" : "Record and re-classify"}
      </button>
      {error && !error.issueAt("$.receipt") && (
        <p className="field-error" role="alert">
          {error.message}
        </p>
      )}
    </form>
  );
}

/** What reconciling did to the chain: its move, in states and words. */
export function ReconcileOutcome({ result }: { result: ReconcileResult }) {
  return (
    <div className={styles.outcome} role="status" data-testid="reconcile-outcome">
      <p>
        Re-classified: <StateBadge state={result.fromState} /> → <StateBadge state={result.toState} />
      </p>
      <p>
        {reasonText(result.reasons[0] ?? "").title}. Retry{" "}
        {result.retrySafe ? "is safe" : "is not safe automatically"}.
        {result.shadowed && (
          <>
            {" "}
            Behind it: <StateBadge state={result.shadowed.state} />
          </>
        )}
      </p>
    </div>
  );
}
