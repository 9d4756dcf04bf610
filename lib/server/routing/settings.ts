import { env } from "../env";

// Alert routing and delivery settings, derived once from the validated environment (lib/server/env.ts).

export type AlertSettings = {
  alertTickMs: number;
  deliveryTickMs: number;
  wakeUps: boolean;
  /** Route (and flush what is due at once) in the committing transaction; needs wake-ups (route-at-commit.ts). */
  routeAtCommit: boolean;
  /** How long the routing job gathers this instance's own commits' wake-ups (0 without routing at commit). */
  outboxGatherMs: number;
  wakeReconnectMaxMs: number;
  timeoutMs: number;
  maxAttempts: number;
  backoffMs: number;
  backoffMaxMs: number;
  perTarget: number;
  inFlight: number;
  leaseMarginMs: number;
  publicUrl: string;
};

let cached: AlertSettings | undefined;

export function alertSettings(): AlertSettings {
  if (cached) return cached;
  const e = env();
  const routeAtCommit = e.RECEIPT_WAKE_UPS === "1" && e.RECEIPT_ROUTE_AT_COMMIT === "1";
  cached = {
    alertTickMs: e.RECEIPT_ALERT_TICK_MS,
    deliveryTickMs: e.RECEIPT_DELIVERY_TICK_MS,
    wakeUps: e.RECEIPT_WAKE_UPS === "1",
    routeAtCommit,
    outboxGatherMs: routeAtCommit ? e.RECEIPT_OUTBOX_GATHER_MS : 0,
    wakeReconnectMaxMs: e.RECEIPT_WAKE_RECONNECT_MAX_MS,
    timeoutMs: e.RECEIPT_DELIVERY_TIMEOUT_MS,
    maxAttempts: e.RECEIPT_DELIVERY_MAX_ATTEMPTS,
    backoffMs: e.RECEIPT_DELIVERY_BACKOFF_MS,
    backoffMaxMs: Math.max(e.RECEIPT_DELIVERY_BACKOFF_MAX_MS, e.RECEIPT_DELIVERY_BACKOFF_MS),
    perTarget: e.RECEIPT_DELIVERY_PER_TARGET,
    inFlight: e.RECEIPT_DELIVERY_IN_FLIGHT,
    leaseMarginMs: e.RECEIPT_DELIVERY_LEASE_MARGIN_MS,
    publicUrl: e.RECEIPT_PUBLIC_URL ?? `http://localhost:${e.PORT}`,
  };
  return cached;
}
