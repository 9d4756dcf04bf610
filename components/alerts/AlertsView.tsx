"use client";

import { useState } from "react";
import { STATES } from "@/lib/contract/states";
import type { AlertGroupView, WorkspaceAlertView } from "@/lib/dashboard/routing-api-types";
import { isMuted } from "@/lib/routing/alert-priority";
import { SEVERITIES } from "@/lib/routing/types";
import { RoleNote } from "../auth/RoleGate";
import { EmptyState, ErrorState, LoadingState } from "../ui/StatusViews";
import { useUrlState } from "../ui/use-url-state";
import { SilenceDialog } from "./SilenceDialog";
import { AlertGroup } from "./AlertGroup";
import { AssignedToMeToggle } from "../team/AssignedToMeToggle";
import { useAlertGroups } from "./alerts-queries";
import styles from "./Alerts.module.css";

const STATUS_TABS = [
  ["firing", "Firing"],
  ["resolved", "Resolved (24 h)"],
] as const;

/** Few groups, or a list narrowed by a filter, open whole: collapsing pays only on a long page. */
const OPEN_ALL_UP_TO = 3;

/** /alerts: what is firing (or resolved in the last day), by notification group, the worst first. */
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
  const groups = answer.data?.groups ?? [];
  const receivers = [...new Set(groups.map((g) => g.receiver))];
  // Silenced and inhibited alerts reach nobody: hidden until asked for (muted=1), with their count.
  const showMuted = params.get("muted") === "1";
  const mutedCount = groups.reduce((n, g) => n + g.alerts.filter(isMuted).length, 0);
  // Which groups are open: the URL's list (open=<group key>, repeated), else every group of a short or filtered list,
  // else the worst one only.
  const narrowed = Boolean(
    filters.chain || filters.q || filters.receiver || filters.state || filters.severity,
  );
  const openKeys = params.getAll("open");
  const isOpen = (group: AlertGroupView, index: number) =>
    openKeys.length > 0
      ? openKeys.includes(group.groupKey)
      : narrowed || groups.length <= OPEN_ALL_UP_TO || index === 0;
  const toggle = (group: AlertGroupView) => {
    const current = groups.filter(isOpen).map((g) => g.groupKey);
    const next = current.includes(group.groupKey)
      ? current.filter((key) => key !== group.groupKey)
      : [...current, group.groupKey];
    // An empty list would mean "the default": a lone "-" keeps every group closed.
    update({ open: next.length > 0 ? next : ["-"] });
  };

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
          <div className={styles.listHead}>
            <p className="muted">
              {groups.length} group{groups.length === 1 ? "" : "s"}, the worst first: alerts that still reach
              someone, then severity, state and age.
            </p>
            {mutedCount > 0 && (
              <button
                type="button"
                className="button small"
                aria-pressed={showMuted}
                data-testid="show-muted"
                onClick={() => update({ muted: showMuted ? null : "1" })}
              >
                {showMuted ? "Hide" : "Show"} silenced and inhibited ({mutedCount})
              </button>
            )}
          </div>
          {groups.map((group, index) => (
            <AlertGroup
              key={group.groupKey}
              group={group}
              open={isOpen(group, index)}
              showMuted={showMuted}
              onToggle={() => toggle(group)}
              onSilence={setSilencing}
            />
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
