"use client";

import { type FormEvent, useState } from "react";
import { ROLE_LABELS, type Role } from "@/lib/auth/roles";
import { AuthCard } from "../auth/AuthCard";
import styles from "../auth/AuthCard.module.css";
import { Time } from "../ui/Time";

type Issue = { path: string; message: string };

const FIELDS = ["username", "displayName", "password"] as const;

/** The invited person picks a username and a password; each refusal shows next to its field. */
export function JoinForm({ token, role, expiresAt }: { token: string; role: Role; expiresAt: string }) {
  const [issues, setIssues] = useState<Issue[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const issueAt = (field: string) => issues.find((issue) => issue.path === `$.${field}`)?.message;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    const form = new FormData(event.currentTarget);
    const displayName = String(form.get("displayName") ?? "").trim();
    try {
      const response = await fetch(`/api/auth/invites/${encodeURIComponent(token)}/accept`, {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          username: form.get("username"),
          password: form.get("password"),
          ...(displayName ? { displayName } : {}),
        }),
      });
      if (response.ok) {
        // A full navigation: the dashboard's guarded layout runs again with the new session cookie.
        window.location.assign("/");
        return;
      }
      const body = (await response.json().catch(() => null)) as {
        error?: { message: string; issues?: Issue[] };
      } | null;
      const fieldIssues = (body?.error?.issues ?? []).filter((issue) =>
        FIELDS.some((field) => issue.path === `$.${field}`),
      );
      setIssues(fieldIssues);
      setError(
        fieldIssues.length > 0 ? null : (body?.error?.message ?? `The server answered ${response.status}.`),
      );
    } catch {
      setError("The server could not be reached. Is Receipt running?");
    }
    setBusy(false);
  }

  const describedBy = (field: string) => (issueAt(field) ? `${field}-error` : undefined);
  return (
    <AuthCard
      title="Join the team"
      intro={
        <>
          You are invited as a <strong>{ROLE_LABELS[role].toLowerCase()}</strong>. The link works once and
          expires <Time iso={expiresAt} />.
        </>
      }
    >
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        {error && (
          <p className={styles.error} role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="username">Username</label>
          <input
            id="username"
            name="username"
            autoComplete="username"
            required
            aria-invalid={issueAt("username") ? true : undefined}
            aria-describedby={describedBy("username")}
          />
          {issueAt("username") && (
            <span id="username-error" className="field-error">
              {issueAt("username")}
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor="displayName">Display name (optional)</label>
          <input
            id="displayName"
            name="displayName"
            autoComplete="name"
            aria-invalid={issueAt("displayName") ? true : undefined}
            aria-describedby={describedBy("displayName")}
          />
          {issueAt("displayName") && (
            <span id="displayName-error" className="field-error">
              {issueAt("displayName")}
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            aria-invalid={issueAt("password") ? true : undefined}
            aria-describedby={describedBy("password")}
          />
          {issueAt("password") && (
            <span id="password-error" className="field-error">
              {issueAt("password")}
            </span>
          )}
        </div>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? "Joining…" : "Join and sign in"}
        </button>
      </form>
    </AuthCard>
  );
}
