"use client";

import { type FormEvent, useState } from "react";
import { ApiClientError } from "../api/http";
import { useChangePassword } from "../users/users-queries";
import styles from "./Account.module.css";

const FIELDS = [
  { name: "currentPassword", label: "Current password", autoComplete: "current-password" },
  { name: "newPassword", label: "New password (at least 8 characters)", autoComplete: "new-password" },
] as const;

/** Change one's own password; each refusal (wrong current password, too short, unchanged) shows at its field. */
export function PasswordForm() {
  const change = useChangePassword();
  const [values, setValues] = useState({ currentPassword: "", newPassword: "" });
  const error = change.error instanceof ApiClientError ? change.error : null;
  const issueAt = (name: string) => error?.issueAt(`$.${name}`);

  function submit(event: FormEvent) {
    event.preventDefault();
    change.mutate(values, { onSuccess: () => setValues({ currentPassword: "", newPassword: "" }) });
  }

  return (
    <form className={`panel ${styles.form}`} onSubmit={submit} aria-labelledby="password-title" noValidate>
      <h2 id="password-title">Change your password</h2>
      {FIELDS.map((field) => (
        <div className="field" key={field.name}>
          <label htmlFor={field.name}>{field.label}</label>
          <input
            id={field.name}
            type="password"
            autoComplete={field.autoComplete}
            value={values[field.name]}
            onChange={(e) => setValues((current) => ({ ...current, [field.name]: e.target.value }))}
            aria-invalid={issueAt(field.name) ? true : undefined}
            aria-describedby={issueAt(field.name) ? `${field.name}-error` : undefined}
          />
          {issueAt(field.name) && (
            <span id={`${field.name}-error`} className="field-error">
              {issueAt(field.name)}
            </span>
          )}
        </div>
      ))}
      <div>
        <button type="submit" className="button primary" disabled={change.isPending}>
          {change.isPending ? "Saving…" : "Change password"}
        </button>
      </div>
      {error && !FIELDS.some((field) => issueAt(field.name)) && (
        <p className="field-error" role="alert">
          {error.message}
        </p>
      )}
      {change.isSuccess && (
        <p className={styles.saved} role="status">
          Password changed.{" "}
          {change.data.otherSessionsEnded > 0
            ? `${change.data.otherSessionsEnded} other session(s) signed out.`
            : "No other session was open."}
        </p>
      )}
    </form>
  );
}
