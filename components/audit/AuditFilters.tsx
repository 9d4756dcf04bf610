"use client";

import { type FormEvent, useRef } from "react";
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from "@/lib/audit/audit-actions";
import type { UrlUpdate } from "../ui/use-url-state";
import styles from "./Audit.module.css";

/** An ISO time as a datetime-local input's value (the browser's own zone), and back. */
const toLocalInput = (iso: string | null) => {
  if (!iso || Number.isNaN(Date.parse(iso))) return "";
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (value: string) => (value ? new Date(value).toISOString() : null);

export const AUDIT_FILTERS = ["actor", "action", "targetType", "targetId", "since", "until"] as const;

/** Who, what, which target and when, read from and written to the URL (selects at once, text on Enter). */
export function AuditFilters({
  params,
  onChange,
}: {
  params: URLSearchParams;
  onChange: (u: UrlUpdate) => void;
}) {
  const form = useRef<HTMLFormElement>(null);
  const actions = params.getAll("action");

  function apply(event?: FormEvent) {
    event?.preventDefault();
    const data = new FormData(form.current ?? undefined);
    const text = (name: string) => String(data.get(name) ?? "").trim() || null;
    const action = text("action");
    onChange({
      actor: text("actor"),
      // A shared link may name several actions; the picker shows and replaces them as one choice.
      action: action === "__kept" ? actions : action,
      targetType: text("targetType"),
      targetId: text("targetId"),
      since: fromLocalInput(text("since") ?? ""),
      until: fromLocalInput(text("until") ?? ""),
    });
  }

  return (
    <form
      ref={form}
      onSubmit={apply}
      className={`panel ${styles.filters}`}
      aria-label="Filter the audit log"
      key={params.toString()}
    >
      <div className="field">
        <label htmlFor="audit-actor">Who</label>
        <input
          id="audit-actor"
          name="actor"
          defaultValue={params.get("actor") ?? ""}
          placeholder="user name or key:<name>"
          maxLength={200}
        />
      </div>
      <div className="field">
        <label htmlFor="audit-action">Action</label>
        <select
          id="audit-action"
          name="action"
          defaultValue={actions.length > 1 ? "__kept" : (actions[0] ?? "")}
          onChange={() => apply()}
        >
          <option value="">Any action</option>
          {actions.length > 1 && <option value="__kept">{actions.join(", ")}</option>}
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-target-type">Target</label>
        <select
          id="audit-target-type"
          name="targetType"
          defaultValue={params.get("targetType") ?? ""}
          onChange={() => apply()}
        >
          <option value="">Any target</option>
          {AUDIT_TARGET_TYPES.map((type) => (
            <option key={type} value={type}>
              {type.replace("_", " ")}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-target-id">Target id</label>
        <input
          id="audit-target-id"
          name="targetId"
          defaultValue={params.get("targetId") ?? ""}
          maxLength={256}
        />
      </div>
      <div className="field">
        <label htmlFor="audit-since">From</label>
        <input
          id="audit-since"
          name="since"
          type="datetime-local"
          defaultValue={toLocalInput(params.get("since"))}
        />
      </div>
      <div className="field">
        <label htmlFor="audit-until">Until</label>
        <input
          id="audit-until"
          name="until"
          type="datetime-local"
          defaultValue={toLocalInput(params.get("until"))}
        />
      </div>
      <div className={styles.filterActions}>
        <button type="submit" className="button primary small">
          Apply
        </button>
        <button
          type="button"
          className="button small"
          onClick={() => onChange(Object.fromEntries(AUDIT_FILTERS.map((name) => [name, null])))}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
