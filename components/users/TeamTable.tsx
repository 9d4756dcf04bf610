"use client";

import { ROLE_LABELS, ROLES, type Role } from "@/lib/auth/roles";
import type { TeamMember } from "@/lib/dashboard/team-types";
import { ApiClientError } from "../api/http";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { Time } from "../ui/Time";
import styles from "./Users.module.css";
import { useTeam, useUpdateUser } from "./users-queries";

/** The team: each user's role (a select that saves at once) and a disable/enable button, as Grafana's Users page. */
export function TeamTable({ selfUsername }: { selfUsername: string }) {
  const team = useTeam();
  if (team.isPending) return <LoadingState label="Loading users" />;
  if (team.isError) return <ErrorState error={team.error} what="users" onRetry={() => team.refetch()} />;
  if (team.data.users.length === 0)
    return (
      <div className="panel">
        <EmptyState title="No users yet" />
      </div>
    );
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">Users</caption>
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Role</th>
            <th scope="col" className="hide-narrow">
              Joined
            </th>
            <th scope="col" className="hide-narrow">
              Last seen
            </th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {team.data.users.map((user) => (
            <TeamRow key={user.id} user={user} isSelf={user.username === selfUsername} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TeamRow({ user, isSelf }: { user: TeamMember; isSelf: boolean }) {
  const update = useUpdateUser();
  const error = update.error instanceof ApiClientError ? update.error : null;
  const roleError = error?.issueAt("$.role");
  const disabledError = error?.issueAt("$.disabled");
  return (
    <tr data-username={user.username} className={user.disabled ? styles.disabledRow : undefined}>
      <th scope="row" className={styles.name}>
        {user.displayName ? (
          <>
            {user.displayName} <span className="muted">({user.username})</span>
          </>
        ) : (
          user.username
        )}
        {isSelf && <span className="muted"> — you</span>}
      </th>
      <td data-label="Role">
        <label className="visually-hidden" htmlFor={`role-${user.id}`}>
          Role of {user.username}
        </label>
        <select
          id={`role-${user.id}`}
          value={user.role}
          disabled={update.isPending}
          aria-invalid={roleError ? true : undefined}
          aria-describedby={roleError ? `role-error-${user.id}` : undefined}
          onChange={(event) => update.mutate({ id: user.id, change: { role: event.target.value as Role } })}
        >
          {ROLES.map((role) => (
            <option key={role} value={role}>
              {ROLE_LABELS[role]}
            </option>
          ))}
        </select>
        {roleError && (
          <span id={`role-error-${user.id}`} className={styles.rowError} role="alert">
            {roleError}
          </span>
        )}
      </td>
      <td data-label="Joined" className="hide-narrow">
        <Time iso={user.createdAt} />
      </td>
      <td data-label="Last seen" className="hide-narrow">
        {user.lastSeenAt ? <Time iso={user.lastSeenAt} /> : <span className="muted">never</span>}
      </td>
      <td data-label="Status">
        <span className={styles.actions}>
          {user.disabled ? "disabled" : "active"}
          {!isSelf && (
            <button
              type="button"
              className={`button small${user.disabled ? "" : " danger"}`}
              disabled={update.isPending}
              aria-label={`${user.disabled ? "Enable" : "Disable"} ${user.username}`}
              onClick={() => update.mutate({ id: user.id, change: { disabled: !user.disabled } })}
            >
              {user.disabled ? "Enable" : "Disable"}
            </button>
          )}
        </span>
        {disabledError && (
          <span className={styles.rowError} role="alert">
            {disabledError}
          </span>
        )}
        {error && !roleError && !disabledError && (
          <span className={styles.rowError} role="alert">
            {error.message}
          </span>
        )}
      </td>
    </tr>
  );
}
