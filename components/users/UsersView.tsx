"use client";

import { InviteForm, InviteTable } from "./InvitePanel";
import { TeamTable } from "./TeamTable";

/** Settings → Users (admins): the team with roles, invitations by one-time link. */
export function UsersView({ selfUsername }: { selfUsername: string }) {
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <p className="muted">Settings</p>
          <h1>Users</h1>
          <p>
            Viewers read; responders also triage, silence and reconcile; admins also manage keys, routing and
            users. A change applies to the user's next request.
          </p>
        </div>
      </div>
      <TeamTable selfUsername={selfUsername} />
      <InviteForm />
      <h2>Invitations</h2>
      <InviteTable />
    </div>
  );
}
