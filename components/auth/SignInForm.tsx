"use client";

import { type FormEvent, useState } from "react";
import { safeNextPath } from "@/lib/dashboard/safe-next-path";
import { hydratedMark, useHydrated } from "../ui/use-hydrated";
import { AuthCard } from "./AuthCard";
import styles from "./AuthCard.module.css";
import { postCredentials } from "./post-credentials";

export function SignInForm({
  next,
  oidcName = null,
  initialError = null,
}: {
  next: string;
  /** "Sign in with <name>" through OpenID Connect, when the server has a provider. */
  oidcName?: string | null;
  /** Why the last single sign-on came back here (lib/auth/oidc-identity.ts). */
  initialError?: string | null;
}) {
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    const form = new FormData(event.currentTarget);
    const failure = await postCredentials("/api/auth/sign-in", form);
    if (failure) {
      setError(failure);
      setBusy(false);
      return;
    }
    // A full navigation, so the guarded layout runs again with the new cookie; `next` is checked again here, as it
    // is the one value of this page that came from the URL.
    window.location.assign(safeNextPath(next));
  }

  return (
    <AuthCard title="Sign in" intro="The dashboard shows where each MCP call's evidence stopped.">
      <form className={styles.form} onSubmit={onSubmit} noValidate {...hydratedMark(hydrated)}>
        {error && (
          <p className={styles.error} role="alert">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="username">Username</label>
          <input id="username" name="username" autoComplete="username" required defaultValue="admin" />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required />
        </div>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {oidcName && (
        <>
          <p className={styles.or}>or</p>
          {/* A plain link: the server answers with a redirect to the provider. */}
          <a
            className={`button ${styles.sso}`}
            href={`/api/auth/oidc/start?${new URLSearchParams({ next: safeNextPath(next) })}`}
          >
            Sign in with {oidcName}
          </a>
        </>
      )}
    </AuthCard>
  );
}
