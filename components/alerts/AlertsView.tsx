"use client";

import Link from "next/link";
import { useState } from "react";
import { STATES } from "@/lib/contract/states";
import type { AlertGroupView, WorkspaceAlertView } from "@/lib/dashboard/api-types";
import { SEVERITIES } from "@/lib/routing/types";
import { useRoleAllows } from "../auth/CurrentUser";
import { RoleNote, roleReason } from "../auth/RoleGate";
import { StateBadge } from "../state/StateBadge";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { Time } from "../ui/Time";
import { useUrlState } from "../ui/use-url-state";
import { DeliveryStatusBadge } from "./DeliveryStatusBadge";
import { SilenceDialog } from "./SilenceDialog";
import { ApiClientError } from "../api/http";
import { useAssignAlert } from "../api/mutations";
import { AssignedToMeToggle } from "../team/AssignedToMeToggle";
import { AssigneeName, AssigneePicker } from "../team/AssigneePicker";
import { useAlertGroups } from "./alerts-queries";
import styles from "./Alerts.module.css";

const STATUS_TABS = [
  ["firing", "Firing"],
  ["resolved", "Resolved (24 h)"],
] as const;

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
        <td className={styles.wrap}>
          <Link href={`/chains/${encodeURIComponent(alert.chainId)}`} className="mono">
            {alert.chainId}
          </Link>
          {alert.labels.server && <div className="muted">{alert.labels.server}</div>}
        </td>
        <td>
          <StateBadge state={alert.state} />
        </td>
        <td>{alert.severity}</td>
        <td>
          {alert.status === "firing" ? "since " : "resolved "}
          <Time iso={alert.status === "firing" ? alert.startsAt : alert.endsAt} />
        </td>
        <td>
          {alert.lastNotifiedAt ? <Time iso={alert.lastNotifiedAt} /> : <span className="muted">–</span>}
        </td>
        <td>
          <DeliveryStatusBadge alert={alert} />
        </td>
        <td className={styles.wrap}>
          <AssigneeName assignee={alert.assignee} />
        </td>
        <td>
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

function Group({ group, onSilence }: { group: AlertGroupView; onSilence: (a: WorkspaceAlertView) => void }) {
  return (
    <section className="panel" data-testid="alert-group" data-receiver={group.receiver}>
      <h3 className={styles.groupHead}>
        <span>{group.routeName ?? `route ${group.routeId}`}</span> <GroupLabels labels={group.groupLabels} />
        <span className="muted"> · {group.alerts.length} alert(s)</span>
      </h3>
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
            {group.alerts.map((alert) => (
              <AlertRow key={alert.fingerprint} alert={alert} onSilence={() => onSilence(alert)} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** /alerts: what is firing (or resolved in the last day), by receiver and notification group. */
export function AlertsView() {
  const { params, update } = useUrlState();
  const status = params.get("status") ?? "firing";
  const filters = {
    status,
    state: params.get("state") ?? "",
    severity: params.get("severity") ?? "",
    receiver: params.get("receiver") ?? "",
    chain: params.get("chain") ?? "",
    q: params.get("q") ?? "",
    ...(params.get("assignee") === "me" ? { assignee: "me" } : {}),
  };
  const answer = useAlertGroups(filters);
  const [silencing, setSilencing] = useState<WorkspaceAlertView | null>(null);
  const [text, setText] = useState(filters.q);
  const receivers = [...new Set(answer.data?.groups.map((g) => g.receiver) ?? [])];

  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Alerts</h1>
          <p>Firing and recently resolved alerts, grouped as the routing config sends them.</p>
        </div>
      </div>
      <RoleNote needs="responder" doing="silence alerts" />
      <nav aria-label="Alert status" className={styles.tabs}>
        {[...STATUS_TABS, ...(filters.chain ? [["any", "All of this chain"] as const] : [])].map(
          ([value, label]) => (
            <button
              key={value}
              type="button"
              aria-current={status === value ? "page" : undefined}
              onClick={() => update({ status: value === "firing" ? null : value })}
            >
              {label}
            </button>
          ),
        )}
      </nav>
      <form
        className={styles.filters}
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          update({ q: text.trim() });
        }}
      >
        <FilterSelect
          label="State"
          value={filters.state}
          options={STATES}
          onChange={(state) => update({ state })}
        />
        <FilterSelect
          label="Severity"
          value={filters.severity}
          options={SEVERITIES}
          onChange={(severity) => update({ severity })}
        />
        <FilterSelect
          label="Receiver"
          value={filters.receiver}
          options={[...new Set([...(answer.data?.receivers ?? []), ...receivers, filters.receiver])].filter(
            Boolean,
          )}
          onChange={(receiver) => update({ receiver })}
        />
        <label className={styles.search}>
          Text (chain or label)
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <button type="submit" className="button small">
          Filter
        </button>
        <AssignedToMeToggle
          on={filters.assignee === "me"}
          onChange={(on) => update({ assignee: on ? "me" : null })}
        />
        {filters.chain && (
          <span className={styles.chips}>
            <code className={styles.chip}>chain={filters.chain}</code>
            <button
              type="button"
              className="button small"
              onClick={() => update({ chain: null, status: null })}
            >
              All chains
            </button>
          </span>
        )}
      </form>
      {answer.isPending ? (
        <LoadingState label="Loading alerts" rows={6} />
      ) : answer.isError ? (
        <ErrorState error={answer.error} what="the alerts" onRetry={() => answer.refetch()} />
      ) : answer.data.groups.length === 0 ? (
        <div className="panel">
          <EmptyState
            title={status === "resolved" ? "Nothing resolved in the last day" : "Nothing firing"}
            icon="✓"
          >
            <p>No alert matches these filters.</p>
          </EmptyState>
        </div>
      ) : (
        <>
          {receivers.map((receiver) => (
            <section key={receiver} className="stack" aria-label={`Receiver ${receiver}`}>
              <h2 className={styles.receiver}>→ {receiver}</h2>
              {answer.data.groups
                .filter((g) => g.receiver === receiver)
                .map((group) => (
                  <Group key={group.groupKey} group={group} onSilence={setSilencing} />
                ))}
            </section>
          ))}
          <p className="muted">
            {answer.data.alertCount} alert(s) read
            {answer.data.truncated ? ": more match — narrow the filters to see the rest" : ""}.
          </p>
        </>
      )}
      {silencing && <SilenceDialog alert={silencing} onClose={() => setSilencing(null)} />}
    </div>
  );
}

/** One filter of the list: "any" or one of `options`, kept in the URL by the caller. */
function FilterSelect(props: {
  label: string;
  value: string;
  options: readonly string[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">any</option>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}
