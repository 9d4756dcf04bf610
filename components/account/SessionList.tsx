"use client";

import type { OwnSession } from "@/lib/dashboard/team-types";
import { ErrorState, LoadingState } from "../ui/StatusViews";
import { Time } from "../ui/Time";
import { useOwnSessions, useRevokeOtherSessions, useRevokeSession } from "../users/users-queries";
import styles from "./Account.module.css";

const METHOD_LABELS: Record<string, string> = {
  password: "password",
  oidc: "single sign-on",
  invite: "invitation",
  setup: "first-run setup",
};

/** Where one is signed in, as GitHub's sessions page: this browser marked, any other one revocable. */
export function SessionList() {
  const sessions = useOwnSessions();
  const revokeOthers = useRevokeOtherSessions();
  if (sessions.isPending) return <LoadingState label="Loading sessions" />;
  if (sessions.isError)
    return <ErrorState error={sessions.error} what="sessions" onRetry={() => sessions.refetch()} />;
  const others = sessions.data.sessions.filter((session) => !session.current).length;
  return (
    <section className="stack" aria-labelledby="sessions-title">
      <div className={styles.head}>
        <h2 id="sessions-title">Where you are signed in</h2>
        {others > 0 && (
          <button
            type="button"
            className="button small danger"
            disabled={revokeOthers.isPending}
            onClick={() => revokeOthers.mutate()}
          >
            Sign out all other sessions ({others})
          </button>
        )}
      </div>
      <div className="table-scroll">
        <table className="data-table">
          <caption className="visually-hidden">Your sessions</caption>
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col" className="hide-narrow">
                Signed in
              </th>
              <th scope="col">Last active</th>
              <th scope="col">
                <span className="visually-hidden">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {[...sessions.data.sessions]
              .sort((a, b) => Number(b.current) - Number(a.current))
              .map((session) => (
                <SessionRow key={session.id} session={session} />
              ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function SessionRow({ session }: { session: OwnSession }) {
  const revoke = useRevokeSession();
  return (
    <tr data-session-id={session.id} data-current={session.current || undefined}>
      <th scope="row" className={styles.agent}>
        {session.current && <span className={styles.current}>This browser · </span>}
        {session.userAgent ?? "unknown browser"}
        <span className="muted">
          {" "}
          · {METHOD_LABELS[session.method] ?? session.method}
          {session.address ? ` · ${session.address}` : ""}
        </span>
      </th>
      <td data-label="Signed in" className="hide-narrow">
        <Time iso={session.createdAt} />
      </td>
      <td data-label="Last active">
        <Time iso={session.lastSeenAt} />
      </td>
      <td>
        {!session.current && (
          <button
            type="button"
            className="button small"
            disabled={revoke.isPending}
            onClick={() => revoke.mutate(session.id)}
          >
            Revoke
          </button>
        )}
        {revoke.error && (
          <span className="field-error" role="alert">
            {revoke.error.message}
          </span>
        )}
      </td>
    </tr>
  );
}
