import { z } from "zod";

// Alert delivery settings from the environment, validated once. Defaults suit production; the tests shorten the
// ticks and the backoff so a whole routing scenario runs in seconds.
const ms = (fallback: number, min = 1) => z.coerce.number().int().min(min).default(fallback);

const ZAlertSettings = z.object({
  // Wake-ups and safety ticks (lib/server/worker/background.ts). A commit wakes routing and delivery at once, in this
  // process and, through LISTEN/NOTIFY, in every other; a timer flushes each group when it is due. The ticks only
  // catch what a lost notification missed.
  /** Safety tick: how often the outbox is routed and due groups are flushed without a wake-up. */
  RECEIPT_ALERT_TICK_MS: ms(5000, 10),
  /** Safety tick: how often due deliveries (retries included) are sent without a wake-up. */
  RECEIPT_DELIVERY_TICK_MS: ms(5000, 10),
  /** "0": no wake-ups, no LISTEN connection, no group timer: ticks only. */
  RECEIPT_WAKE_UPS: z.enum(["0", "1"]).default("1"),
  /** Longest wait between reconnection attempts of the LISTEN connection. */
  RECEIPT_WAKE_RECONNECT_MAX_MS: ms(30_000, 100),

  /** Per-attempt HTTP timeout. */
  RECEIPT_DELIVERY_TIMEOUT_MS: ms(10_000, 100),
  RECEIPT_DELIVERY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  /** First retry delay; doubled per attempt up to the maximum. */
  RECEIPT_DELIVERY_BACKOFF_MS: ms(5_000),
  RECEIPT_DELIVERY_BACKOFF_MAX_MS: ms(15 * 60_000),
  // The delivery engine (delivery-dispatcher.ts).
  /** Sends in flight to one target (channel + target index) at once. */
  RECEIPT_DELIVERY_PER_TARGET: z.coerce.number().int().min(1).max(64).default(4),
  /** Deliveries one instance holds at once (sending or waiting for their target), all targets together. */
  RECEIPT_DELIVERY_IN_FLIGHT: z.coerce.number().int().min(1).max(1024).default(128),
  /** A claim's lease is the attempt's timeout plus this: after a crash, another instance re-sends once it ends. */
  RECEIPT_DELIVERY_LEASE_MARGIN_MS: ms(30_000, 0),
  /** The dashboard's address as receivers should reach it (links in payloads). */
  RECEIPT_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  PORT: z.coerce.number().int().default(3000),
});

export type AlertSettings = {
  alertTickMs: number;
  deliveryTickMs: number;
  wakeUps: boolean;
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
  const parsed = ZAlertSettings.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment variable(s): ${problems.join("; ")}`);
  }
  const env = parsed.data;
  cached = {
    alertTickMs: env.RECEIPT_ALERT_TICK_MS,
    deliveryTickMs: env.RECEIPT_DELIVERY_TICK_MS,
    wakeUps: env.RECEIPT_WAKE_UPS === "1",
    wakeReconnectMaxMs: env.RECEIPT_WAKE_RECONNECT_MAX_MS,
    timeoutMs: env.RECEIPT_DELIVERY_TIMEOUT_MS,
    maxAttempts: env.RECEIPT_DELIVERY_MAX_ATTEMPTS,
    backoffMs: env.RECEIPT_DELIVERY_BACKOFF_MS,
    backoffMaxMs: Math.max(env.RECEIPT_DELIVERY_BACKOFF_MAX_MS, env.RECEIPT_DELIVERY_BACKOFF_MS),
    perTarget: env.RECEIPT_DELIVERY_PER_TARGET,
    inFlight: env.RECEIPT_DELIVERY_IN_FLIGHT,
    leaseMarginMs: env.RECEIPT_DELIVERY_LEASE_MARGIN_MS,
    publicUrl: env.RECEIPT_PUBLIC_URL ?? `http://localhost:${env.PORT}`,
  };
  return cached;
}
