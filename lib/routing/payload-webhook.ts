// The generic JSON webhook body: the canonical payload. Slack and PagerDuty bodies are views of it.
import { detailsFor, guidanceFor, type LinkBuilder, type Notification, type NotifiedAlert } from "./payload";
import { type Layer, SEVERITIES, type Severity, type State } from "./types";

export const WEBHOOK_PAYLOAD_VERSION = "receipt.alerts.v1";

export interface WebhookAlert {
  fingerprint: string;
  status: "firing" | "resolved";
  state: State;
  layer: Layer;
  severity: Severity;
  reasons: string[];
  chainId: string;
  sessionId: string;
  server?: string;
  client?: string;
  tool?: string;
  transport?: string;
  retrySafe?: boolean;
  /** Set when this alert comes from the chain's `shadowed` state. */
  shadowedBy?: State;
  startsAt: string;
  endsAt?: string;
  guidance: string;
  /** The record's own labels (env, team, …). */
  labels: Record<string, string>;
  links: { chain: string; reconcile?: string };
  /** State-specific evidence (issue 6's table). */
  details: Record<string, unknown>;
}

export interface WebhookBody {
  version: typeof WEBHOOK_PAYLOAD_VERSION;
  groupKey: string;
  status: "firing" | "resolved";
  receiver: string;
  /** The most urgent severity among the firing alerts (or among all, once resolved). */
  severity: Severity;
  alerts: WebhookAlert[];
}

export const notificationStatus = (n: Notification): "firing" | "resolved" =>
  n.alerts.some((a) => a.status === "firing") ? "firing" : "resolved";

export function highestSeverity(alerts: readonly NotifiedAlert[]): Severity {
  const firing = alerts.filter((a) => a.status === "firing");
  const pool = firing.length > 0 ? firing : alerts;
  const rank = Math.min(...pool.map((a) => SEVERITIES.indexOf(a.severity)), SEVERITIES.length - 1);
  return SEVERITIES[rank] ?? "low";
}

export function webhookAlert(item: NotifiedAlert, links: LinkBuilder): WebhookAlert {
  const { alert } = item;
  const labels = alert.labels;
  const recordLabels = Object.fromEntries(
    Object.entries(labels)
      .filter(([key]) => key.startsWith("label."))
      .map(([key, value]) => [key.slice("label.".length), value]),
  );
  const out: WebhookAlert = {
    fingerprint: alert.fingerprint,
    status: item.status,
    state: alert.state,
    layer: alert.layer,
    severity: item.severity,
    reasons: [...alert.reasons],
    chainId: alert.chainId,
    sessionId: alert.sessionId,
    startsAt: item.startsAt,
    guidance: guidanceFor(alert),
    labels: recordLabels,
    links: {
      chain: links.chain(alert.chainId),
      ...(alert.state === "effect_unknown" ? { reconcile: links.reconcile(alert.chainId) } : {}),
    },
    details: detailsFor(alert, item.context),
  };
  if (labels.server !== undefined) out.server = labels.server;
  if (labels.client !== undefined) out.client = labels.client;
  if (labels.tool !== undefined) out.tool = labels.tool;
  if (labels.transport !== undefined) out.transport = labels.transport;
  if (alert.retrySafe !== undefined) out.retrySafe = alert.retrySafe;
  if (alert.shadowedBy !== undefined) out.shadowedBy = alert.shadowedBy;
  if (item.status === "resolved" && item.endsAt !== undefined) out.endsAt = item.endsAt;
  return out;
}

export function buildWebhookBody(notification: Notification, links: LinkBuilder): WebhookBody {
  return {
    version: WEBHOOK_PAYLOAD_VERSION,
    groupKey: notification.groupKey,
    status: notificationStatus(notification),
    receiver: notification.receiver,
    severity: highestSeverity(notification.alerts),
    alerts: notification.alerts.map((a) => webhookAlert(a, links)),
  };
}
