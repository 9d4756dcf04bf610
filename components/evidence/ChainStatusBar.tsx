"use client";

import Link from "next/link";
import type { TriageItemView, WorkspaceAlertView } from "@/lib/dashboard/api-types";
import { useAlertGroups } from "../alerts/alerts-queries";
import { DeliveryStatusBadge } from "../alerts/DeliveryStatusBadge";
import styles from "../alerts/Alerts.module.css";
import { useChainTriage } from "../api/queries";
import { StateBadge } from "../state/StateBadge";
import { Time } from "../ui/Time";
import { AssigneeName } from "../team/AssigneePicker";

const QUEUE_HREF: Record<string, string> = {
  effect_unknown: "/queues/effect-unknown",
  false_success: "/queues/false-success",
};

function TriageLine({ item, chainId }: { item: TriageItemView; chainId: string }) {
  return (
    <li data-testid="chain-triage-item" data-status={item.status}>
      <Link
        href={`${QUEUE_HREF[item.queue] ?? "/queues/effect-unknown"}?status=all&chain=${encodeURIComponent(chainId)}`}
      >
        {item.queue.replace("_", " ")} queue
      </Link>
      : <strong>{item.status}</strong>
      {" · "}
      <AssigneeName assignee={item.assignee} formerOwner={item.formerOwner} />
      {item.acknowledgedAt && (
        <div className="muted">
          acknowledged by {item.acknowledgedBy ?? "?"} <Time iso={item.acknowledgedAt} />
        </div>
      )}
      {item.resolvedAt && (
        <div className="muted">
          resolved by {item.resolvedBy ?? "?"} <Time iso={item.resolvedAt} />
        </div>
      )}
    </li>
  );
}

function AlertLine({ alert, receiver }: { alert: WorkspaceAlertView; receiver: string }) {
  return (
    <li data-testid="chain-alert" data-status={alert.status} data-delivery={alert.delivery}>
      <StateBadge state={alert.state} /> {alert.severity} · <strong>{alert.status}</strong>{" "}
      <Time iso={alert.status === "firing" ? alert.startsAt : alert.endsAt} /> → {receiver}
      <DeliveryStatusBadge alert={alert} />
    </li>
  );
}

/** The top of a chain's page: who owns it in triage, and which alerts it raised and whether anyone was told. */
export function ChainStatusBar({ chainId }: { chainId: string }) {
  const triage = useChainTriage(chainId);
  const alerts = useAlertGroups({ status: "any", chain: chainId });
  const items = triage.data?.items ?? [];
  const lines = (alerts.data?.groups ?? []).flatMap((group) =>
    group.alerts.map((alert) => ({
      alert,
      receiver: group.receiver,
      key: `${group.groupKey}|${alert.fingerprint}`,
    })),
  );
  return (
    <section
      className={`panel ${styles.statusBar}`}
      aria-label="Triage and alerts"
      data-testid="chain-status-bar"
    >
      <div>
        <h2>Triage</h2>
        {triage.isPending ? (
          <p className="muted">Loading…</p>
        ) : items.length === 0 ? (
          <p className="muted">In no triage queue.</p>
        ) : (
          <ul className={styles.plainList}>
            {items.map((item) => (
              <TriageLine key={item.queue} item={item} chainId={chainId} />
            ))}
          </ul>
        )}
      </div>
      <div>
        <h2>Alerts</h2>
        {alerts.isPending ? (
          <p className="muted">Loading…</p>
        ) : alerts.isError ? (
          <p className="muted">The alerts could not be read.</p>
        ) : lines.length === 0 ? (
          <p className="muted">No alert raised.</p>
        ) : (
          <ul className={styles.plainList}>
            {lines.map((line) => (
              <AlertLine key={line.key} alert={line.alert} receiver={line.receiver} />
            ))}
          </ul>
        )}
        <p>
          <Link href={`/alerts?chain=${encodeURIComponent(chainId)}&status=any`}>
            This chain on the alerts page →
          </Link>{" "}
          ·{" "}
          <Link href={`/routing?deliveries_chain=${encodeURIComponent(chainId)}#deliveries`}>
            its deliveries
          </Link>
        </p>
      </div>
    </section>
  );
}
