// One attempt of a claimed delivery: signed, POSTed, and what its answer means. The engine (delivery-dispatcher.ts)
// decides when it runs and records what it returns.
import { DELIVERY_ATTEMPT_HEADER, DELIVERY_ID_HEADER } from "@/lib/routing/requests";
import { signRequest } from "@/lib/routing/sign";
import type { ClaimedDelivery } from "../db/routing-delivery-claims";
import { observeStage } from "./alert-stages";
import { type AttemptDecision, decideAttempt } from "./attempt-outcome";
import { type PostResult, postOnce } from "./http-post";
import type { AlertSettings } from "./settings";

export type Attempt = { at: Date; result: PostResult; decision: AttemptDecision };

/**
 * Signs the delivery at send time, so every attempt carries a fresh timestamp inside the receiver's replay window,
 * with its id and attempt number for the receiver's deduplication; POSTs it; decides retry, delivered or dead.
 * Throws only when the delivery cannot be attempted at all (its stored headers, say): the caller sets it aside.
 */
export async function attemptDelivery(delivery: ClaimedDelivery, settings: AlertSettings): Promise<Attempt> {
  const at = new Date();
  const { headers } = signRequest(
    {
      channel: delivery.channel,
      targetIndex: delivery.targetIndex,
      targetType: "webhook",
      url: delivery.url,
      body: delivery.body,
      headers: {
        ...delivery.headers,
        [DELIVERY_ID_HEADER]: String(delivery.id),
        [DELIVERY_ATTEMPT_HEADER]: String(delivery.attempts),
      },
      ...(delivery.signingSecret ? { signingSecret: delivery.signingSecret } : {}),
    },
    at.getTime(),
  );
  const posted = performance.now();
  const result = await postOnce(
    delivery.url,
    delivery.body,
    headers,
    settings.timeoutMs,
    delivery.targetType,
  );
  observeStage("post", (performance.now() - posted) / 1000);
  return { at, result, decision: decideAttempt(result, delivery, settings, Date.now()) };
}
