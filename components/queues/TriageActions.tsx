"use client";

import { useCallback, useState } from "react";
import type { LifecycleOutcome } from "@/lib/problems/lifecycle";
import type { QueueName, TriageItemView } from "@/lib/dashboard/api-types";
import { ApiClientError } from "../api/http";
import { type TriageInput, useTriageAction } from "../api/mutations";
import { ResolvedNotice } from "../problems/ResolvedNotice";
import { AssigneeName, AssigneePicker } from "../team/AssigneePicker";
import { Time } from "../ui/Time";
import styles from "./Queues.module.css";

/** Acknowledge, assign a team member, note, resolve or reopen. A typed note goes with whichever action is taken. */
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
  // What the last resolve did (the item and its alerts), with its undo, for a few seconds.
  const [outcome, setOutcome] = useState<LifecycleOutcome | null>(null);
  const dismiss = useCallback(() => setOutcome(null), []);

  function run(input: Omit<TriageInput, "queue">) {
    const quiet = input.action === "assign" || input.action === "unassign";
    const withNote = note.trim() && !quiet ? { ...input, note: note.trim() } : input;
    mutation.mutate(
      { ...withNote, queue },
      {
        onSuccess: (answer) => {
          // Only the note that went with this action is cleared: one typed meanwhile (while an assign was in
          // flight, say) is kept.
          const sent = "note" in withNote ? withNote.note : undefined;
          if (sent !== undefined) setNote((current) => (current.trim() === sent ? "" : current));
          setOutcome(answer.lifecycle ?? null);
        },
      },
    );
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
        <AssigneeName assignee={item.assignee} formerOwner={item.formerOwner} />
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
      <AssigneePicker
        assignee={item.assignee}
        busy={mutation.isPending}
        onAssign={(assigneeId) => run({ action: "assign", assigneeId })}
        onUnassign={() => run({ action: "unassign" })}
      />
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
      {outcome && (
        <ResolvedNotice key={outcome.undo?.id ?? outcome.message} outcome={outcome} onDone={dismiss} />
      )}
      {error && (
        <p className="field-error" role="alert">
          {error.issues[0]?.message ?? error.message}
        </p>
      )}
    </section>
  );
}
