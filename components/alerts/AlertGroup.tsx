"use client";

import Link from "next/link";
import { useState } from "react";
import type { AlertGroupView, WorkspaceAlertView } from "@/lib/dashboard/routing-api-types";
import { isMuted, summarizeGroup } from "@/lib/routing/alert-priority";
import { ApiClientError } from "../api/http";
import { useAssignAlert } from "../api/mutations";
import { useRoleAllows } from "../auth/CurrentUser";
import { roleReason } from "../auth/RoleGate";
import { StateBadge } from "../state/StateBadge";
import { AssigneeName, AssigneePicker } from "../team/AssigneePicker";
import { Time } from "../ui/Time";
import { DeliveryStatusBadge } from "./DeliveryStatusBadge";
import styles from "./Alerts.module.css";

// One notification group of the alerts page: a summary line (worst severity and state, receiver, route, loud and
// muted counts) that opens to its alerts, worst first; silenced and inhibited ones only when asked for.

function GroupLabels({ labels }: { labels: Record<string, string> }) {
  const pairs = Object.entries(labels);
  if (pairs.length === 0) return <span className="muted">one group for the route</span>;
  return (
    <span className={styles.chips}>
      {pairs.map(([name, value]) => (
        <code key={name} className={styles.chip}>
          {name}={value === "" ? "∅" : value}
        </code>
      ))}
    </span>
  );
}

function AlertRow({ alert, onSilence }: { alert: WorkspaceAlertView; onSilence: () => void }) {
  const [assigning, setAssigning] = useState(false);
  const mayRespond = useRoleAllows("responder");
  return (
    <>
      <tr data-testid="alert-row" data-chain={alert.chainId} data-delivery={alert.delivery}>
        <td data-label="Chain" className={styles.wrap}>
          <Link href={`/chains/${encodeURIComponent(alert.chainId)}`} className="mono">
            {alert.chainId}
          </Link>
          {alert.labels.server && <div className="muted">{alert.labels.server}</div>}
        </td>
        <td data-label="State">
          <StateBadge state={alert.state} />
        </td>
        <td data-label="Severity">{alert.severity}</td>
        <td data-label="Since">
          {alert.status === "firing" ? "since " : "resolved "}
          <Time iso={alert.status === "firing" ? alert.startsAt : alert.endsAt} />
        </td>
        <td data-label="Last notified">
          {alert.lastNotifiedAt ? <Time iso={alert.lastNotifiedAt} /> : <span className="muted">–</span>}
        </td>
        <td data-label="Delivery">
          <DeliveryStatusBadge alert={alert} />
        </td>
        <td data-label="Assignee" className={styles.wrap}>
          <AssigneeName assignee={alert.assignee} />
        </td>
        <td data-label="Actions">
          <div className={styles.rowActions}>
            <button
              type="button"
              className="button small"
              aria-expanded={assigning}
              onClick={() => setAssigning((open) => !open)}
              disabled={!mayRespond}
              title={mayRespond ? undefined : roleReason("responder", "assign alerts")}
            >
              Assign…
            </button>
            {alert.status === "firing" && alert.delivery !== "silenced" && (
              <button
                type="button"
                className="button small"
                onClick={onSilence}
                disabled={!mayRespond}
                title={mayRespond ? undefined : roleReason("responder", "silence alerts")}
              >
                Silence…
              </button>
            )}
          </div>
        </td>
      </tr>
      {assigning && (
        <tr data-testid="alert-assign-row">
          <td colSpan={8}>
            <AlertAssignee alert={alert} />
          </td>
        </tr>
      )}
    </>
  );
}

function AlertAssignee({ alert }: { alert: WorkspaceAlertView }) {
  const mutation = useAssignAlert(alert.fingerprint);
  const error = mutation.error instanceof ApiClientError ? mutation.error : null;
  return (
    <div className={styles.assign}>
      <AssigneePicker
        assignee={alert.assignee}
        busy={mutation.isPending}
        onAssign={(assigneeId) => mutation.mutate({ action: "assign", assigneeId })}
        onUnassign={() => mutation.mutate({ action: "unassign" })}
      />
      {error && (
        <p className="field-error" role="alert">
          {error.issues[0]?.message ?? error.message}
        </p>
      )}
    </div>
  );
}

function GroupSummaryLine({ group }: { group: AlertGroupView }) {
  const summary = summarizeGroup(group.alerts);
  return (
    <span className={styles.groupSummary} data-testid="alert-group-summary">
      {summary.worstSeverity && (
        <span className={styles[`sev-${summary.worstSeverity}`]}>{summary.worstSeverity}</span>
      )}
      {summary.worstState && <StateBadge state={summary.worstState} />}
      <strong>→ {group.receiver}</strong>
      <span>{group.routeName ?? `route ${group.routeId}`}</span>
      <GroupLabels labels={group.groupLabels} />
      <span className="muted">
        {summary.loud} loud
        {summary.muted > 0 ? `, ${summary.muted} silenced or inhibited` : ""}
      </span>
      {summary.oldestLoudAt && (
        <span className="muted">
          since <Time iso={summary.oldestLoudAt} />
        </span>
      )}
    </span>
  );
}

export function AlertGroup({
  group,
  open,
  showMuted,
  onToggle,
  onSilence,
}: {
  group: AlertGroupView;
  open: boolean;
  showMuted: boolean;
  onToggle: () => void;
  onSilence: (a: WorkspaceAlertView) => void;
}) {
  const shown = showMuted ? group.alerts : group.alerts.filter((alert) => !isMuted(alert));
  const hidden = group.alerts.length - shown.length;
  return (
    <section
      className="panel"
      data-testid="alert-group"
      data-receiver={group.receiver}
      data-open={open ? "true" : "false"}
    >
      <h3 className={styles.groupHead}>
        <button type="button" className={styles.groupToggle} aria-expanded={open} onClick={onToggle}>
          <span aria-hidden="true">{open ? "▾" : "▸"}</span>
          <GroupSummaryLine group={group} />
        </button>
      </h3>
      {open && shown.length > 0 && (
        <div className={`table-scroll ${styles.scrollBox}`}>
          <table className="data-table">
            <caption className="visually-hidden">Alerts of group {group.groupKey}</caption>
            <thead>
              <tr>
                <th scope="col">Chain</th>
                <th scope="col">State</th>
                <th scope="col">Severity</th>
                <th scope="col">Since</th>
                <th scope="col">Last notified</th>
                <th scope="col">Delivery</th>
                <th scope="col">Assignee</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((alert) => (
                <AlertRow key={alert.fingerprint} alert={alert} onSilence={() => onSilence(alert)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && hidden > 0 && (
        <p className="muted" data-testid="alert-group-muted">
          {hidden} silenced or inhibited alert{hidden === 1 ? "" : "s"} hidden here.
        </p>
      )}
    </section>
  );
}
