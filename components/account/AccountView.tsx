"use client";

import Link from "next/link";
import { ROLE_LABELS, type Role } from "@/lib/auth/roles";
import { PasswordForm } from "./PasswordForm";
import { SessionList } from "./SessionList";

/** Your account (every user): who you are, your password, where you are signed in. */
export function AccountView({ username, role }: { username: string; role: Role }) {
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Your account</h1>
          <p>
            Signed in as <strong>{username}</strong>, {ROLE_LABELS[role].toLowerCase()}. Alerts of items
            assigned to you can go to your own channel:{" "}
            <Link href="/account/notifications">notification settings</Link>.
          </p>
        </div>
      </div>
      <PasswordForm />
      <SessionList />
    </div>
  );
}
