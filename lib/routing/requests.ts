// From a notification and a channel to the HTTP requests to make, one list per channel. Pure:
// the delivery worker stores these in the outbox, signs webhook bodies at send time (sign.ts, so a
// retry gets a fresh timestamp) and POSTs them.
import type { TChannel, TTarget } from "./config";
import type { LinkBuilder, Notification } from "./payload";
import { buildPagerDutyEvents } from "./payload-pagerduty";
import { buildSlackMessage } from "./payload-slack";
import { buildWebhookBody } from "./payload-webhook";

export interface OutboundRequest {
  channel: string;
  targetIndex: number;
  targetType: TTarget["type"];
  url: string;
  /** Exactly the bytes to POST (and to sign). */
  body: string;
  headers: Record<string, string>;
  /**
   * Webhook targets only: the HMAC key. Kept beside the request rather than as a header so that
   * signing happens at send time; strip it before logging (see redactRequest).
   */
  signingSecret?: string;
  /** PagerDuty only: the alert this event is about (one request per alert). */
  dedupKey?: string;
}

/**
 * Sent with every delivery (all target types): the delivery's id, the same on each retry and on a re-send after a
 * crash, so a receiver can drop a repeat; and which attempt this is (1, 2, …). Not part of the webhook signature.
 */
export const DELIVERY_ID_HEADER = "Receipt-Delivery-Id";
export const DELIVERY_ATTEMPT_HEADER = "Receipt-Delivery-Attempt";

const JSON_HEADERS = { "content-type": "application/json" } as const;

export function buildRequests(
  channel: TChannel,
  notification: Notification,
  links: LinkBuilder,
): OutboundRequest[] {
  return channel.targets.flatMap((target, targetIndex) =>
    requestsForTarget(
      target,
      { channel: channel.name, targetIndex, targetType: target.type, url: target.url },
      notification,
      links,
    ),
  );
}

function requestsForTarget(
  target: TTarget,
  base: Pick<OutboundRequest, "channel" | "targetIndex" | "targetType" | "url">,
  notification: Notification,
  links: LinkBuilder,
): OutboundRequest[] {
  switch (target.type) {
    case "webhook":
      return [
        {
          ...base,
          body: JSON.stringify(buildWebhookBody(notification, links)),
          headers: { ...JSON_HEADERS },
          signingSecret: target.secret,
        },
      ];
    case "slack":
      return [
        {
          ...base,
          body: JSON.stringify(buildSlackMessage(notification, links)),
          headers: { ...JSON_HEADERS },
        },
      ];
    case "pagerduty":
      return buildPagerDutyEvents(notification, target.routingKey, links).map((event) => ({
        ...base,
        body: JSON.stringify(event),
        headers: { ...JSON_HEADERS },
        dedupKey: event.dedup_key,
      }));
  }
}

/** A copy safe for the delivery log: no signing secret; Slack URLs carry their secret in the path. */
export function redactRequest(request: OutboundRequest): Omit<OutboundRequest, "signingSecret" | "body"> {
  const { signingSecret: _secret, body: _body, ...rest } = request;
  const url = request.targetType === "slack" ? `${new URL(request.url).origin}/…` : request.url;
  return { ...rest, url };
}
