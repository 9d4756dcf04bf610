"use client";

import type { TriageEventView } from "@/lib/dashboard/api-types";
import { formatAbsolute } from "@/lib/dashboard/format";
import styles from "./Queues.module.css";

const WORDS: Record<string, string> = {
  acknowledge: "acknowledged",
  assign: "assigned",
  unassign: "unassigned",
  note: "added a note",
  resolve: "resolved",
  reopen: "reopened",
  reconcile: "reconciled",
};

function detail(event: TriageEventView): string {
  const data = event.data ?? {};
  if (event.action === "assign") return data.to ? ` to ${String(data.to)}` : " to nobody";
  if (event.action === "unassign") return data.from ? ` (was ${String(data.from)})` : "";
  if (event.action === "reconcile") {
    return `: destination ${String(data.status)}${data.receipt ? ` (${String(data.receipt)})` : ""} → ${String(data.toState)}`;
  }
  return "";
}

/** Who did what and when, newest last; kept for good (the API never edits an event). */
export function AuditTrail({ events, loading }: { events?: TriageEventView[]; loading: boolean }) {
  return (
    <section aria-labelledby="audit-title">
      <h3 id="audit-title">Audit trail</h3>
      {loading ? (
        <p className="muted">Loading…</p>
      ) : !events || events.length === 0 ? (
        <p className="muted">Nobody has acted on this chain yet.</p>
      ) : (
        <ol className={styles.audit} data-testid="audit-trail">
          {events.map((event) => (
            <li key={event.id}>
              <time dateTime={event.at}>{formatAbsolute(event.at)}</time>
              <span>
                <strong>{event.actor}</strong> {WORDS[event.action] ?? event.action}
                {detail(event)}
                {event.note && <q>{event.note}</q>}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
