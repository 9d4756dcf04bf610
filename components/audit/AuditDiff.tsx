"use client";

import { auditFieldChanges } from "@/lib/audit/audit-view";
import styles from "./Audit.module.css";

const show = (value: unknown) =>
  value === undefined ? "—" : typeof value === "string" ? value : JSON.stringify(value, null, 2);

/** Before → after, field by field; the changed fields are highlighted, the others shown muted for context. */
export function AuditDiff({ before, after }: { before: unknown; after: unknown }) {
  // Changed fields first (jsonb keeps keys in its own order, not the writer's).
  const fields = auditFieldChanges(before, after).sort((a, b) => Number(b.changed) - Number(a.changed));
  if (fields.length === 0) return <p className="muted">No details were recorded.</p>;
  return (
    <dl className={styles.diff} data-testid="audit-diff">
      {fields.map((field) => (
        <div
          key={field.field}
          className={field.changed ? styles.changed : styles.kept}
          data-changed={field.changed}
        >
          <dt>
            {field.field}
            {field.changed && <span className="visually-hidden"> (changed)</span>}
          </dt>
          <dd>
            <span className={styles.diffLabel}>Before</span>
            <pre>{show(field.before)}</pre>
          </dd>
          <dd>
            <span className={styles.diffLabel}>After</span>
            <pre>{show(field.after)}</pre>
          </dd>
        </div>
      ))}
    </dl>
  );
}
