"use client";

import type { AlertDeliveryStatus, WorkspaceAlertView } from "@/lib/dashboard/routing-api-types";
import styles from "./Alerts.module.css";

export const DELIVERY_LABEL: Record<AlertDeliveryStatus, string> = {
  silenced: "silenced",
  inhibited: "inhibited",
  no_target: "no target",
  failed: "failed",
  retrying: "retrying",
  sending: "sending",
  delivered: "delivered",
  waiting: "not sent yet",
};

/** What became of the alert's latest notification, with each target's attempts and last error. */
export function DeliveryStatusBadge({ alert }: { alert: WorkspaceAlertView }) {
  const failing = alert.deliveries.filter((d) => d.lastError);
  return (
    <div className={styles.delivery}>
      <span className={styles.badge} data-status={alert.delivery}>
        {DELIVERY_LABEL[alert.delivery]}
      </span>
      {alert.inhibitedBy && alert.delivery === "inhibited" && (
        <span className="muted"> by {alert.inhibitedBy}</span>
      )}
      {alert.deliveries.length > 0 && (
        <div className="muted">
          {alert.deliveries
            .map((d) => `${d.channel}/${d.targetType}: ${d.attempts}/${d.maxAttempts} attempt(s)`)
            .join(" · ")}
        </div>
      )}
      {failing.map((d) => (
        <div key={d.id} className={styles.error}>
          {d.lastError}
        </div>
      ))}
    </div>
  );
}
