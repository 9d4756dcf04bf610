"use client";

import { type FormEvent, useState } from "react";
import { AuthCard } from "./AuthCard";
import styles from "./AuthCard.module.css";
import { postCredentials } from "./post-credentials";

/** First run: creates the admin (only while no user exists) and signs it in. */
export function SetupForm() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    if (form.get("password") !== form.get("confirm")) {
      setError("The two passwords differ.");
      return;
    }
    form.delete("confirm");
    setBusy(true);
    const failure = await postCredentials("/api/auth/setup", form);
    if (failure) {
      setError(failure);
      setBusy(false);
      return;
    }
    window.location.assign("/");
  }

  return (
    <AuthCard
      title="Create the admin"
      intro="No user exists yet. The first account administers Receipt; its password is stored as an scrypt hash."
    >
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        {error && (
          <p className={styles.error} role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="username">Username</label>
          <input id="username" name="username" autoComplete="username" defaultValue="admin" required />
        </div>
        <div className="field">
          <label htmlFor="password">Password (at least 8 characters)</label>
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="new-password"
            minLength={8}
            required
          />
        </div>
        <div className="field">
          <label htmlFor="confirm">Password again</label>
          <input id="confirm" name="confirm" type="password" autoComplete="new-password" required />
        </div>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? "Creating…" : "Create admin and sign in"}
        </button>
      </form>
    </AuthCard>
  );
}
