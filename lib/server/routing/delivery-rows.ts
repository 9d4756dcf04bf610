import type { TChannel } from "@/lib/routing/config";
import { linksFor, type Notification } from "@/lib/routing/payload";
import { buildRequests } from "@/lib/routing/requests";
import type { DeliveryInsert } from "../db/routing-deliveries";
import { alertSettings } from "./settings";

/** One delivery per HTTP request a notification makes to a channel's targets (PagerDuty: one per alert). */
export function deliveryRowsFor(
  notification: Notification,
  channel: TChannel,
  kind: DeliveryInsert["kind"],
): DeliveryInsert[] {
  const settings = alertSettings();
  const all = notification.alerts.map((a) => a.alert.fingerprint);
  return buildRequests(channel, notification, linksFor(settings.publicUrl)).map((request) => ({
    groupKey: notification.groupKey,
    channel: request.channel,
    targetIndex: request.targetIndex,
    targetType: request.targetType,
    url: request.url,
    body: request.body,
    headers: request.headers,
    signingSecret: request.signingSecret ?? null,
    kind,
    alertFingerprints: request.dedupKey ? [request.dedupKey] : all,
    maxAttempts: settings.maxAttempts,
  }));
}
