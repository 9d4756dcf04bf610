/**
 * The JSON of the routing API (/api/v1/routing/*) and the alerts page, as types the dashboard and the server share.
 * Client-safe, like api-types.ts.
 */
import type { TRoutingConfig } from "../routing/config";
import type { RouteTestResult } from "../routing/route-test";
import type { AlertDeliveryStatus } from "../routing/alert-workspace";
import type { AssigneeView } from "./api-types";

export type RoutingConfigAnswer = { version: string; isDefault: boolean; config: TRoutingConfig };

export type ConfigVersion = { version: string; createdAt: string; createdBy: string; comment: string | null };

export type SilenceView = {
  id: string;
  matchers: string[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
  createdAt: string;
  status: "active" | "pending" | "expired";
  /** An active silence's firing alerts muted now (`more`: past the count's bound). */
  mutes?: { alerts: number; more: boolean };
};

export type DeliveryAttemptView = {
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
};

export type DeliveryView = {
  id: string;
  kind: "notification" | "test";
  groupKey: string;
  channel: string;
  targetIndex: number;
  targetType: "webhook" | "slack" | "pagerduty";
  url: string;
  status: "pending" | "delivered" | "dead";
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  alertFingerprints: string[];
  /** The route and group labels its group key names (null: a test notification, a legacy key). */
  group: { routeId: string; routeName: string | null; labels: Record<string, string> } | null;
  /** The chain of each alert it carried (alerts since deleted are left out). */
  alerts: { fingerprint: string; chainId: string; state: string }[];
  body: unknown;
  attemptLog: DeliveryAttemptView[];
};

export type RouteTestAnswer = RouteTestResult & {
  chain: {
    chainId: string;
    state: string;
    layer: string;
    reasons: string[];
    retrySafe: boolean | null;
    shadowed: { state: string; reason: string } | null;
  };
};

// The alerts page (/api/v1/routing/alerts/groups) and the silence preview.

export type AlertDeliverySummary = {
  id: string;
  channel: string;
  targetType: string;
  status: "pending" | "delivered" | "dead";
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
};

export type { AlertDeliveryStatus };

export type WorkspaceAlertView = {
  fingerprint: string;
  chainId: string;
  sessionId: string;
  state: string;
  severity: string;
  status: "firing" | "resolved";
  labels: Record<string, string>;
  reasons: string[];
  startsAt: string;
  endsAt: string | null;
  resolvedBy: string | null;
  /** Who owns the alert (the assignee of its chain's item when its state is a queue). */
  assignee: AssigneeView | null;
  delivery: AlertDeliveryStatus;
  /** The silence muting it now, or the chain of the alert inhibiting it. */
  silencedBy: string | null;
  inhibitedBy: string | null;
  lastNotifiedAt: string | null;
  /** The latest notification of this group that carried it: one delivery per target. */
  deliveries: AlertDeliverySummary[];
};

export type AlertGroupView = {
  groupKey: string;
  receiver: string;
  routeId: string;
  routeName: string | null;
  groupLabels: Record<string, string>;
  alerts: WorkspaceAlertView[];
};

export type AlertGroupsAnswer = {
  status: "firing" | "resolved" | "any";
  groups: AlertGroupView[];
  /** Alerts read (before the receiver filter); `truncated`: more matched than the limit. */
  alertCount: number;
  truncated: boolean;
  receivers: string[];
};

export type SilencePreviewAlert = {
  fingerprint: string;
  chainId: string;
  state: string;
  severity: string;
  labels: Record<string, string>;
};

export type SilencePreviewAnswer = {
  muted: SilencePreviewAlert[];
  keptProtected: SilencePreviewAlert[];
  scanned: number;
  truncated: boolean;
};
/** One stored routing config version, secrets masked (GET /api/v1/routing/config/versions/{id}). */
export type ConfigVersionDetail = ConfigVersion & { isCurrent: boolean; config: TRoutingConfig };
