"use client";

import { useQuery } from "@tanstack/react-query";
import { cascadeQuestion, countsText } from "@/lib/problems/lifecycle";
import { fetchProblemsBelow } from "../api/problems";
import { ErrorState } from "../ui/StatusViews";
import styles from "./Problems.module.css";

/**
 * The question before a resolve: what hangs below the problems (their open queue items and firing alerts), and
 * whether to resolve those too ("Also resolve 12 queue items and 3 alerts?"). With nothing below it asks nothing more.
 */
export function ResolveConfirm({
  keys,
  busy,
  onConfirm,
  onCancel,
}: {
  keys: string[];
  busy: boolean;
  onConfirm: (cascade: boolean) => void;
  onCancel: () => void;
}) {
  const below = useQuery({ queryKey: ["problems-below", keys], queryFn: () => fetchProblemsBelow(keys) });
  const what =
    keys.length === 1 ? "this problem" : countsText({ problems: keys.length, items: 0, alerts: 0 });
  if (below.isPending) return <p className="muted">Looking at what hangs below…</p>;
  if (below.isError)
    return <ErrorState error={below.error} what="what hangs below" onRetry={() => below.refetch()} />;
  const question = cascadeQuestion(below.data);
  return (
    <fieldset className={styles.confirm} aria-label="Confirm resolve">
      <p>
        Resolve {what}? {question ?? "No open queue item or firing alert hangs below."}
        {below.data.tooMany &&
          " That is more than one resolve may change: resolve fewer at once, or only the problems."}
      </p>
      <div className={styles.confirmButtons}>
        {question && !below.data.tooMany && (
          <button
            type="button"
            className="button primary small"
            disabled={busy}
            onClick={() => onConfirm(true)}
          >
            Resolve all
          </button>
        )}
        <button
          type="button"
          className={`button small${question ? "" : " primary"}`}
          disabled={busy}
          onClick={() => onConfirm(false)}
        >
          {question ? (keys.length === 1 ? "Only the problem" : "Only the problems") : "Resolve"}
        </button>
        <button type="button" className="button small" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}
