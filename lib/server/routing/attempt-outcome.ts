// What one attempt's HTTP result means for its delivery and its target. Pure.
import { backoffDelay, isPermanentRefusal, type PostResult } from "./http-post";
import { honoursRetryAfter, retryAfterMs } from "./retry-after";

export type AttemptDecision = {
  /** delivered, retry at nextAttemptMs, or dead (attempts exhausted or a permanent refusal). */
  status: "delivered" | "pending" | "dead";
  nextAttemptMs: number;
  /** A 429 or 503 with Retry-After pauses the whole target (in this process) until then; else null. */
  pauseTargetUntilMs: number | null;
};

export type RetryPolicy = { backoffMs: number; backoffMaxMs: number };

/**
 * A failure is retried after exponential backoff, or after the receiver's Retry-After when it is later (capped at the
 * maximum backoff, so a receiver cannot park a delivery for days).
 */
export function decideAttempt(
  result: Pick<PostResult, "ok" | "statusCode" | "retryAfter" | "refused">,
  delivery: { attempts: number; maxAttempts: number },
  policy: RetryPolicy,
  nowMs: number,
  random: () => number = Math.random,
): AttemptDecision {
  if (result.ok) return { status: "delivered", nextAttemptMs: nowMs, pauseTargetUntilMs: null };
  const asked = honoursRetryAfter(result.statusCode) ? retryAfterMs(result.retryAfter, nowMs) : null;
  const waitMs = asked === null ? null : Math.min(asked, policy.backoffMaxMs);
  const pauseTargetUntilMs = waitMs === null ? null : nowMs + waitMs;
  if (delivery.attempts >= delivery.maxAttempts || result.refused || isPermanentRefusal(result.statusCode))
    return { status: "dead", nextAttemptMs: nowMs, pauseTargetUntilMs };
  const backoff = backoffDelay(delivery.attempts, policy.backoffMs, policy.backoffMaxMs, random);
  return { status: "pending", nextAttemptMs: nowMs + Math.max(backoff, waitMs ?? 0), pauseTargetUntilMs };
}
