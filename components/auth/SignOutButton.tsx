"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { startSigningOut } from "../api/http";

/** Ends the session on the server, forgets cached data, and goes to the sign-in page. */
export function SignOutButton() {
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  async function signOut() {
    setBusy(true);
    startSigningOut();
    await client.cancelQueries();
    await fetch("/api/auth/sign-out", { method: "POST", credentials: "same-origin" }).catch(() => {});
    client.clear();
    window.location.assign("/sign-in");
  }
  return (
    <button type="button" className="button small" onClick={signOut} disabled={busy}>
      {busy ? "Signing out…" : "Sign out"}
    </button>
  );
}
