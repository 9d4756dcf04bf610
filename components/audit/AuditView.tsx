"use client";

import { useAuditLog } from "../api/audit";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { useUrlState } from "../ui/use-url-state";
import { AUDIT_FILTERS, AuditFilters } from "./AuditFilters";
import { AuditRow } from "./AuditRow";
import styles from "./Audit.module.css";

/**
 * The audit log: every administrative and responding action, newest first. The URL holds the filters, so a link
 * shows someone else exactly these events.
 */
export function AuditView() {
  const { params, update } = useUrlState();
  const filters = {
    ...Object.fromEntries(
      AUDIT_FILTERS.map((name) => [
        name,
        name === "action" ? params.getAll(name) : (params.get(name) ?? undefined),
      ]),
    ),
    // The page size stays in the link too (the API's default when absent).
    limit: params.get("limit") ?? undefined,
  };
  const log = useAuditLog(filters);
  const events = log.data?.pages.flatMap((page) => page.events) ?? [];
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Audit log</h1>
          <p>
            Who changed what, when: keys, routing, users, silences, triage and every other administrative
            action.
          </p>
        </div>
      </div>
      <AuditFilters params={params} onChange={update} />
      {log.isPending ? (
        <LoadingState label="Loading the audit log" rows={6} />
      ) : log.isError ? (
        <ErrorState error={log.error} what="the audit log" onRetry={() => log.refetch()} />
      ) : events.length === 0 ? (
        <div className="panel">
          <EmptyState title="No audit events" icon="○">
            <p>Nothing recorded matches these filters.</p>
          </EmptyState>
        </div>
      ) : (
        <div className="panel">
          <div className={styles.head} aria-hidden="true">
            <span>When</span>
            <span>Who</span>
            <span>Action</span>
            <span>Target</span>
            <span />
          </div>
          <ul className={styles.list} aria-label="Audit events">
            {events.map((event) => (
              <AuditRow key={event.id} event={event} />
            ))}
          </ul>
          {log.hasNextPage && (
            <div className={styles.more}>
              <button
                type="button"
                className="button"
                onClick={() => log.fetchNextPage()}
                disabled={log.isFetchingNextPage}
              >
                {log.isFetchingNextPage ? "Loading…" : "Load more"}
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  );
}
