import { signRequest } from "@/lib/routing/sign";
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  recordAttempt,
  setDeliveriesAside,
} from "../db/alerting-deliveries";
import type { SetAside } from "../db/set-aside";
import { metrics } from "../metrics/registry";
import { failureReason } from "../worker/isolate";
import { backoffDelay, isPermanentRefusal, postOnce } from "./http-post";
import { alertSettings } from "./settings";

const PARALLEL_SENDS = 4;

/**
 * Sends due deliveries: claim (attempt + lease in one statement), POST outside any transaction, then log the attempt
 * and move the delivery to delivered, a later retry, or dead. State lives in the database, so a restart between the
 * commit that created a delivery and its send still sends it. A delivery that cannot be claimed or attempted (its
 * row makes the code or PostgreSQL fail) is set aside as a dead letter, and the others are sent. Returns how many
 * deliveries were claimed.
 */
export async function sendDueDeliveries(now: Date = new Date(), limit = 20): Promise<number> {
  const settings = alertSettings();
  // The lease must outlast the attempt, or a slow receiver could be sent the same notification twice.
  const leaseMs = settings.timeoutMs + 30_000;
  const { claimed, failures } = await claimDueDeliveries(now, leaseMs, limit);
  const failed: SetAside[] = failures.map(({ item, reason }) => ({ key: String(item), reason }));
  // A few sends at a time: slow receivers overlap, and the database pool is left to the requests being served.
  const queue = [...claimed];
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        await attempt(next);
      } catch (error) {
        failed.push({ key: String(next.id), reason: failureReason(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_SENDS, queue.length) }, lane));
  await setDeliveriesAside(failed);
  return claimed.length;
}

async function attempt(delivery: ClaimedDelivery): Promise<void> {
  const settings = alertSettings();
  // Signed at send time: every attempt carries a fresh timestamp inside the receiver's replay window.
  const { headers } = signRequest(
    {
      channel: "",
      targetIndex: 0,
      targetType: "webhook",
      url: delivery.url,
      body: delivery.body,
      headers: delivery.headers,
      ...(delivery.signingSecret ? { signingSecret: delivery.signingSecret } : {}),
    },
    Date.now(),
  );
  const at = new Date();
  const result = await postOnce(delivery.url, delivery.body, headers, settings.timeoutMs);
  const exhausted = delivery.attempts >= delivery.maxAttempts;
  const status = result.ok
    ? "delivered"
    : exhausted || isPermanentRefusal(result.statusCode)
      ? "dead"
      : "pending";
  const retryIn = backoffDelay(delivery.attempts, settings.backoffMs, settings.backoffMaxMs);
  await recordAttempt(delivery.id, {
    at,
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    error: result.error,
    status,
    nextAttemptAt: status === "pending" ? new Date(Date.now() + retryIn) : new Date(),
  });
  metrics().deliveries.inc({
    outcome: status === "pending" ? "failed" : status,
    receiver_kind: delivery.targetType,
  });
}
