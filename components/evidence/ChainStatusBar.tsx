"use client";

import Link from "next/link";
import type { ChainSummary, QueueName, TriageItemView } from "@/lib/dashboard/api-types";
import type { WorkspaceAlertView } from "@/lib/dashboard/routing-api-types";
import { STATE_META } from "@/lib/dashboard/state-meta";
import { chainQueues } from "@/lib/triage/view";
import { useAlertGroups } from "../alerts/alerts-queries";
import { DeliveryStatusBadge } from "../alerts/DeliveryStatusBadge";
import styles from "../alerts/Alerts.module.css";
import { useChainTriage } from "../api/queries";
import { StateBadge } from "../state/StateBadge";
import { Time } from "../ui/Time";
import { RoleFieldset } from "../auth/RoleGate";
import { ReconcileForm } from "../queues/ReconcileForm";
import { TriageActions } from "../queues/TriageActions";

const QUEUE_HREF: Record<QueueName, string> = {
  effect_unknown: "/queues/effect-unknown",
  false_success: "/queues/false-success",
};

/**
 * The chain's place in one queue, with the same actions as the queue's side panel: a chain in a queue's state is in
 * that queue from its first record, whether or not anyone has acted on it yet.
 */
function QueuePlace({
  chainId,
  queue,
  item,
  inQueue,
}: {
  chainId: string;
  queue: QueueName;
  item: TriageItemView;
  inQueue: boolean;
}) {
  const untouched = item.updatedAt === null;
  const actions = (
    <RoleFieldset needs="responder" doing="triage and reconcile this chain">
      <TriageActions queue={queue} chainId={chainId} item={item} />
      {queue === "effect_unknown" && inQueue && <ReconcileForm chainId={chainId} />}
    </RoleFieldset>
  );
  return (
    <li data-testid="chain-triage-item" data-queue={queue} data-status={item.status}>
      <Link href={`${QUEUE_HREF[queue]}?status=all&chain=${encodeURIComponent(chainId)}`}>
        {STATE_META[queue].label} queue
      </Link>
      : <strong>{item.status}</strong>
      {untouched ? " · nobody has acted on it yet" : null}
      {!inQueue && <span className="muted"> · the chain has left this queue</span>}
      {inQueue && item.status !== "resolved" ? (
        actions
      ) : (
        <details>
          <summary>Reopen or add a note</summary>
          {actions}
        </details>
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

/** The top of a chain's page: its triage, acted on here, and which alerts it raised and whether anyone was told. */
export function ChainStatusBar({ chain }: { chain: ChainSummary }) {
  const chainId = chain.chainId;
  const triage = useChainTriage(chainId);
  const alerts = useAlertGroups({ status: "any", chain: chainId });
  const places = chainQueues(chain, triage.data?.items ?? []);
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
        ) : places.length === 0 ? (
          <p className="muted">In no triage queue: only false successes and unknown effects are triaged.</p>
        ) : (
          <ul className={styles.plainList}>
            {places.map((place) => (
              <QueuePlace key={place.queue} chainId={chainId} {...place} />
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
