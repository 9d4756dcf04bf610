import type { TRoutingConfig } from "@/lib/routing/config";
import type { RouteTestResult } from "@/lib/routing/route-test";

// Shapes of the routing API's answers (lib/server/routing/api), as the page reads them.

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
