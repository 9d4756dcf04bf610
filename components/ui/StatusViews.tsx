"use client";

import type { ReactNode } from "react";
import { ApiClientError } from "../api/http";
import styles from "./StatusViews.module.css";

/** Placeholder rows while a query loads, shaped like the content so the page does not jump. */
export function LoadingState({ label, rows = 4 }: { label: string; rows?: number }) {
  return (
    <div className={styles.loading} role="status" aria-live="polite">
      <span className="visually-hidden">{label}</span>
      {Array.from({ length: rows }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
        <div key={i} className={styles.skeleton} style={{ width: `${92 - ((i * 17) % 35)}%` }} />
      ))}
    </div>
  );
}

/** A failed query, said in words, with the API's code and a way to try again. */
export function ErrorState({ error, onRetry, what }: { error: unknown; onRetry?: () => void; what: string }) {
  const status = error instanceof ApiClientError ? error.status : null;
  const code = error instanceof ApiClientError ? error.code : null;
  return (
    <div className={styles.error} role="alert">
      <p className={styles.title}>
        <span aria-hidden="true">⚠</span> Could not load {what}.
      </p>
      <p>
        {status === 404
          ? "It does not exist (or no longer exists)."
          : error instanceof Error
            ? error.message
            : "Something went wrong."}
        {code && <span className={styles.code}> ({code})</span>}
      </p>
      {error instanceof ApiClientError && error.issues.length > 0 && (
        <ul>
          {error.issues.map((issue) => (
            <li key={`${issue.path}:${issue.code}`}>
              <code>{issue.path}</code>: {issue.message}
            </li>
          ))}
        </ul>
      )}
      {onRetry && status !== 404 && (
        <button type="button" className="button small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Nothing to show — said as a finding, with what the person can do next. */
export function EmptyState({
  title,
  children,
  icon = "○",
}: {
  title: string;
  children?: ReactNode;
  icon?: string;
}) {
  return (
    <div className={styles.empty}>
      <p className={styles.emptyIcon} aria-hidden="true">
        {icon}
      </p>
      <p className={styles.title}>{title}</p>
      {children && <div className={styles.emptyBody}>{children}</div>}
    </div>
  );
}
