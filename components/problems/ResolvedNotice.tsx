"use client";

import { useEffect, useState } from "react";
import type { LifecycleOutcome } from "@/lib/problems/lifecycle";
import { ApiClientError } from "../api/http";
import { useUndoResolve } from "../api/problems";
import styles from "./Problems.module.css";

/** How long "Resolved … · Undo" stays; the server accepts the undo for longer (UNDO_WINDOW_MS). */
const SHOWN_MS = 10_000;

/**
 * What a resolve did ("Resolved 1 problem, 12 queue items and 3 alerts") with its one-click Undo, for a few seconds;
 * then what the undo did, or why it could not (something changed since).
 */
export function ResolvedNotice({ outcome, onDone }: { outcome: LifecycleOutcome; onDone: () => void }) {
  const undo = useUndoResolve();
  const [hovered, setHovered] = useState(false);
  const settled = undo.isSuccess || undo.isError;
  useEffect(() => {
    if (hovered || undo.isPending) return;
    const timer = setTimeout(onDone, SHOWN_MS);
    return () => clearTimeout(timer);
  }, [hovered, undo.isPending, onDone]);
  const error = undo.error instanceof ApiClientError ? undo.error : null;
  return (
    <div
      className={styles.notice}
      role="status"
      data-testid="resolved-notice"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
    >
      <span>
        {undo.isSuccess
          ? undo.data.message
          : error
            ? `Could not undo: ${error.issues[0]?.message ?? error.message}`
            : outcome.message}
      </span>
      {outcome.undo && !settled && (
        <>
          {" · "}
          <button
            type="button"
            className={styles.linkButton}
            disabled={undo.isPending}
            onClick={() => outcome.undo && undo.mutate(outcome.undo.id)}
          >
            Undo
          </button>
        </>
      )}
      <button type="button" className={styles.linkButton} aria-label="Dismiss" onClick={onDone}>
        ×
      </button>
    </div>
  );
}
