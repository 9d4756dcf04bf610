"use client";

import { type FormEvent, useState } from "react";
import type { QueueName, TriageItemView } from "@/lib/dashboard/api-types";
import { ApiClientError } from "../api/http";
import { type TriageInput, useTriageAction } from "../api/mutations";
import { Time } from "../ui/Time";
import styles from "./Queues.module.css";

/** Acknowledge, assign an owner, note, resolve or reopen. A typed note goes with whichever action is taken. */
export function TriageActions({
  queue,
  chainId,
  item,
}: {
  queue: QueueName;
  chainId: string;
  item: TriageItemView;
}) {
  const mutation = useTriageAction(chainId);
  const [note, setNote] = useState("");
  const [owner, setOwner] = useState(item.owner ?? "");

  function run(input: Omit<TriageInput, "queue">) {
    const withNote = note.trim() && input.action !== "assign" ? { ...input, note: note.trim() } : input;
    mutation.mutate({ ...withNote, queue }, { onSuccess: () => setNote("") });
  }
  function assign(event: FormEvent) {
    event.preventDefault();
    run({ action: "assign", owner: owner.trim() || null });
  }
  const error = mutation.error instanceof ApiClientError ? mutation.error : null;

  return (
    <section className={styles.actions} aria-labelledby="triage-actions-title">
      <h3 id="triage-actions-title">Triage</h3>
      <p className={styles.itemStatus} data-testid="triage-status">
        <span className={styles[`triage-${item.status}`]}>{item.status}</span>
        {item.status === "acknowledged" && item.acknowledgedBy && (
          <>
            {" "}
            by {item.acknowledgedBy} <Time iso={item.acknowledgedAt} />
          </>
        )}
        {item.status === "resolved" && item.resolvedBy && (
          <>
            {" "}
            by {item.resolvedBy} <Time iso={item.resolvedAt} />
          </>
        )}
        {" · "}
        {item.owner ? `owner ${item.owner}` : "no owner"}
      </p>
      <div className={styles.buttons}>
        {item.status === "open" && (
          <button
            type="button"
            className="button primary small"
            disabled={mutation.isPending}
            onClick={() => run({ action: "acknowledge" })}
          >
            Acknowledge
          </button>
        )}
        {item.status !== "resolved" ? (
          <button
            type="button"
            className="button small"
            disabled={mutation.isPending}
            onClick={() => run({ action: "resolve" })}
          >
            Resolve
          </button>
        ) : (
          <button
            type="button"
            className="button small"
            disabled={mutation.isPending}
            onClick={() => run({ action: "reopen" })}
          >
            Reopen
          </button>
        )}
      </div>
      <form onSubmit={assign} className={styles.inline}>
        <label htmlFor={`owner-${chainId}`}>Owner</label>
        <input
          id={`owner-${chainId}`}
          value={owner}
          onChange={(e) => setOwner(e.target.value)}
          placeholder="team or person"
          maxLength={128}
        />
        <button type="submit" className="button small" disabled={mutation.isPending}>
          Assign
        </button>
      </form>
      <div className="field">
        <label htmlFor={`note-${chainId}`}>Note</label>
        <textarea
          id={`note-${chainId}`}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          maxLength={2000}
          placeholder="What you found or did. Goes with the next action, or add it alone."
        />
        <div>
          <button
            type="button"
            className="button small"
            disabled={!note.trim() || mutation.isPending}
            onClick={() => run({ action: "note" })}
          >
            Add note
          </button>
        </div>
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error.issues[0]?.message ?? error.message}
        </p>
      )}
    </section>
  );
}
