import { z } from "zod";
import { sampleNotification } from "@/lib/routing/sample-notification";
import type { AuditActor } from "../../audit/audit-actor";
import { appendAuditEventSql } from "../../db/audit-events";
import { insertDeliveries } from "../../db/routing-deliveries";
import { inTransaction } from "../../db/sql";
import { ApiError } from "../../http/api-error";
import { reply } from "../../http/api-route";
import { deliveryRowsFor } from "../delivery-rows";
import { currentRouting } from "../routing-config";
import { wakeDeliveriesEverywhere } from "../wake-ups";

export const ZTestNotificationBody = z.strictObject({ channel: z.string().min(1).max(64) });

/**
 * POST test-notification: a clearly labelled sample alert to every target of one channel, through the same delivery
 * path as real notifications (queued, signed, retried, logged), so the log shows exactly what the receiver got.
 * A PagerDuty target opens an incident for the trigger, so it is also sent the matching `resolve` (same dedup_key),
 * queued a millisecond later: a target's deliveries of one group go out in creation order, so never before the
 * trigger. Nobody is left with a test incident to close by hand.
 */
export async function postTestNotification(
  { channel: name }: z.infer<typeof ZTestNotificationBody>,
  actor: AuditActor,
) {
  const { compiled } = await currentRouting();
  const channel = compiled.channels.get(name);
  const issue = (code: string, message: string) => [{ path: "$.channel", code, message }];
  if (!channel)
    throw new ApiError(
      404,
      "not_found",
      `no channel named "${name}"`,
      issue("unknown_channel", "not in the config"),
    );
  if (channel.targets.length === 0)
    throw new ApiError(
      422,
      "no_targets",
      `channel "${name}" has no targets`,
      issue("no_targets", "add a target first"),
    );
  const now = new Date();
  const sample = sampleNotification(name, now.toISOString());
  const resolvedAt = new Date(now.getTime() + 1);
  const resolve = deliveryRowsFor(
    {
      ...sample,
      alerts: sample.alerts.map((a) => ({ ...a, status: "resolved", endsAt: resolvedAt.toISOString() })),
    },
    channel,
    "test",
  ).filter((row) => row.targetType === "pagerduty");
  const ids = await inTransaction(async (sql) => {
    const queued = [
      ...(await insertDeliveries(sql, deliveryRowsFor(sample, channel, "test"), now)),
      ...(await insertDeliveries(sql, resolve, resolvedAt)),
    ];
    await appendAuditEventSql(sql, {
      ...actor,
      action: "routing.test_notification",
      targetType: "receiver",
      targetId: name,
      after: { channel: name, targets: channel.targets.length, deliveries: queued.map(String) },
    });
    return queued;
  });
  await wakeDeliveriesEverywhere();
  return reply({ deliveries: ids.map(String) }, { status: 202 });
}
