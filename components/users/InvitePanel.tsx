"use client";

import { type FormEvent, useState } from "react";
import { ROLE_LABELS, ROLES, type Role } from "@/lib/auth/roles";
import { INVITE_HOURS } from "@/lib/auth/user-input";
import type { CreatedInvite, InviteView } from "@/lib/dashboard/team-types";
import { ApiClientError } from "../api/http";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { Time } from "../ui/Time";
import styles from "./Users.module.css";
import { useCreateInvite, useInvites, useRevokeInvite } from "./users-queries";

/** "Invite a user": a role and how long the link lives; the link is shown once, with a copy button. */
export function InviteForm() {
  const create = useCreateInvite();
  const [role, setRole] = useState<Role>("viewer");
  const [hours, setHours] = useState(String(INVITE_HOURS.default));
  const [created, setCreated] = useState<CreatedInvite | null>(null);
  const error = create.error instanceof ApiClientError ? create.error : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ role, expiresInHours: Number(hours) }, { onSuccess: setCreated });
  }

  return (
    <>
      {created && <NewInviteNotice created={created} onDismiss={() => setCreated(null)} />}
      <form className={`panel ${styles.invite}`} onSubmit={submit} aria-labelledby="invite-title" noValidate>
        <h2 id="invite-title">Invite a user</h2>
        <p className="muted">The link works once; whoever opens it picks a username and a password.</p>
        <div className={styles.inviteFields}>
          <div className="field">
            <label htmlFor="invite-role">Role</label>
            <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABELS[r]}
                </option>
              ))}
            </select>
            {error?.issueAt("$.role") && <span className="field-error">{error.issueAt("$.role")}</span>}
          </div>
          <div className="field">
            <label htmlFor="invite-hours">Expires after (hours)</label>
            <input
              id="invite-hours"
              type="number"
              inputMode="numeric"
              min={INVITE_HOURS.min}
              max={INVITE_HOURS.max}
              value={hours}
              onChange={(e) => setHours(e.target.value)}
              aria-invalid={error?.issueAt("$.expiresInHours") ? true : undefined}
            />
            {error?.issueAt("$.expiresInHours") && (
              <span className="field-error">{error.issueAt("$.expiresInHours")}</span>
            )}
          </div>
          <button type="submit" className="button primary" disabled={create.isPending}>
            {create.isPending ? "Inviting…" : "Create invite link"}
          </button>
        </div>
        {error && !error.issueAt("$.role") && !error.issueAt("$.expiresInHours") && (
          <p className="field-error" role="alert">
            {error.message}
          </p>
        )}
      </form>
    </>
  );
}

function NewInviteNotice({ created, onDismiss }: { created: CreatedInvite; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  const link =
    typeof window === "undefined" ? created.link : new URL(created.link, window.location.origin).href;
  async function copy() {
    await navigator.clipboard?.writeText(link).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  }
  return (
    <section className={styles.notice} role="status" aria-labelledby="new-invite-title">
      <h2 id="new-invite-title">
        Invite link for a {ROLE_LABELS[created.invite.role].toLowerCase()}: copy it now
      </h2>
      <p>
        It is shown only this once and expires <Time iso={created.invite.expiresAt} />. Send it privately.
      </p>
      <div className={styles.linkRow}>
        <code className={styles.link} data-testid="invite-link">
          {link}
        </code>
        <button type="button" className="button small" onClick={copy}>
          {copied ? "Copied" : "Copy link"}
        </button>
      </div>
      <button type="button" className="button small" onClick={onDismiss}>
        Done
      </button>
    </section>
  );
}

/** Invitations, newest first: pending ones can be revoked; used, expired and revoked ones stay for the record. */
export function InviteTable() {
  const invites = useInvites();
  if (invites.isPending) return <LoadingState label="Loading invitations" />;
  if (invites.isError)
    return <ErrorState error={invites.error} what="invitations" onRetry={() => invites.refetch()} />;
  if (invites.data.invites.length === 0)
    return (
      <div className="panel">
        <EmptyState title="No invitations yet" />
      </div>
    );
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">Invitations</caption>
        <thead>
          <tr>
            <th scope="col">Role</th>
            <th scope="col" className="hide-narrow">
              Invited by
            </th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {invites.data.invites.map((invite) => (
            <InviteRow key={invite.id} invite={invite} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function InviteRow({ invite }: { invite: InviteView }) {
  const revoke = useRevokeInvite();
  return (
    <tr data-invite-id={invite.id} data-status={invite.status}>
      <th scope="row">{ROLE_LABELS[invite.role]}</th>
      <td data-label="Invited by" className={`hide-narrow ${styles.name}`}>
        {invite.createdBy}
      </td>
      <td data-label="Created">
        <Time iso={invite.createdAt} />
      </td>
      <td data-label="Expires">
        <Time iso={invite.expiresAt} />
      </td>
      <td data-label="Status">
        <span className={styles.actions}>
          {invite.status}
          {invite.status === "pending" && (
            <button
              type="button"
              className="button small danger"
              disabled={revoke.isPending}
              onClick={() => revoke.mutate(invite.id)}
            >
              Revoke
            </button>
          )}
        </span>
        {revoke.error && (
          <span className={styles.rowError} role="alert">
            {revoke.error.message}
          </span>
        )}
      </td>
    </tr>
  );
}
