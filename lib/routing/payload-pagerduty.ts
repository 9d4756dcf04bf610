// PagerDuty Events API v2: one event per alert, dedup_key = the alert's fingerprint, so PagerDuty
// deduplicates repeats and a resolve closes exactly the incident its trigger opened.
import type { LinkBuilder, Notification } from "./payload";
import { webhookAlert } from "./payload-webhook";
import type { Severity } from "./types";

export type PagerDutySeverity = "critical" | "error" | "warning" | "info";
export const PAGERDUTY_SEVERITY: Readonly<Record<Severity, PagerDutySeverity>> = {
  critical: "critical",
  high: "error",
  warning: "warning",
  low: "info",
};

export type PagerDutyEvent =
  | {
      routing_key: string;
      event_action: "trigger";
      dedup_key: string;
      payload: {
        summary: string;
        source: string;
        severity: PagerDutySeverity;
        timestamp: string;
        component?: string;
        group?: string;
        class: string;
        custom_details: Record<string, unknown>;
      };
      links: Array<{ href: string; text: string }>;
    }
  | { routing_key: string; event_action: "resolve"; dedup_key: string };

export function buildPagerDutyEvents(
  notification: Notification,
  routingKey: string,
  links: LinkBuilder,
): PagerDutyEvent[] {
  return notification.alerts.map((item) => {
    const a = webhookAlert(item, links);
    if (a.status === "resolved")
      return { routing_key: routingKey, event_action: "resolve", dedup_key: a.fingerprint };
    const where = [a.server, a.tool].filter(Boolean).join("/");
    const summary = `${a.state}${where ? ` on ${where}` : ""}: ${a.reasons[0] ?? ""} — ${a.guidance}`;
    return {
      routing_key: routingKey,
      event_action: "trigger",
      dedup_key: a.fingerprint,
      payload: {
        summary: summary.slice(0, 1024), // PagerDuty's limit
        source: a.server ?? a.client ?? "receipt",
        severity: PAGERDUTY_SEVERITY[a.severity],
        timestamp: a.startsAt,
        ...(a.tool ? { component: a.tool } : {}),
        ...(a.server ? { group: a.server } : {}),
        class: a.state,
        custom_details: {
          chainId: a.chainId,
          sessionId: a.sessionId,
          reasons: a.reasons,
          retrySafe: a.retrySafe,
          shadowedBy: a.shadowedBy,
          labels: a.labels,
          details: a.details,
        },
      },
      links: [
        { href: a.links.chain, text: "Evidence chain" },
        ...(a.links.reconcile ? [{ href: a.links.reconcile, text: "Reconcile" }] : []),
      ],
    };
  });
}
