import {
  assigneeChannel,
  maskNotificationTarget,
  type NotificationTarget,
  type NotificationTargetView,
  parseStoredTarget,
} from "@/lib/triage/assignee-target";
import { sampleNotification } from "@/lib/routing/sample-notification";
import { appendAuditEvent } from "../db/audit-events";
import { getPrisma } from "../db/client";
import { insertDeliveries } from "../db/routing-deliveries";
import { inTransaction } from "../db/sql";
import { readNotificationTarget, replaceNotificationTarget } from "../db/team-members";
import { ApiError } from "../http/api-error";
import { refuseTarget } from "../outbound/outbound-guard";
import { reply } from "../http/api-route";
import type { Caller } from "../http/authenticate";
import { deliveryRowsFor } from "../routing/delivery-rows";
import { wakeDeliveriesEverywhere } from "../routing/wake-ups";
import { auditActor } from "../triage/triage-audit";

type UserCaller = Extract<Caller, { kind: "user" }>;

const masked = (value: unknown): NotificationTargetView | null => {
  const target = parseStoredTarget(value);
  return target ? maskNotificationTarget(target) : null;
};

export async function getNotificationTarget(caller: UserCaller) {
  return { target: masked(await readNotificationTarget(caller.userId)) };
}

/**
 * Sets or clears the caller's own target, audited in the same transaction: before and after masked as the API
 * shows them (a Slack URL or a webhook secret never reaches the audit log).
 */
export async function setNotificationTarget(caller: UserCaller, target: NotificationTarget | null) {
  const refusal = target ? refuseTarget({ type: target.kind, url: target.url }) : null;
  if (refusal) {
    throw new ApiError(422, refusal.code, "the notification target is refused; nothing was saved", [
      { path: "$.url", ...refusal },
    ]);
  }
  return getPrisma().$transaction(async (tx) => {
    const previous = await replaceNotificationTarget(tx, caller.userId, target);
    const after = target ? maskNotificationTarget(target) : null;
    await appendAuditEvent(tx, {
      ...auditActor(caller),
      action: "user.notification_target_change",
      targetType: "user",
      targetId: caller.userId,
      before: masked(previous),
      after,
    });
    return { target: after };
  });
}

/** A labelled sample alert to the caller's own target through the delivery path (queued, retried, logged). */
export async function sendTestToNotificationTarget(caller: UserCaller) {
  const target = parseStoredTarget(await readNotificationTarget(caller.userId));
  if (!target) {
    throw new ApiError(422, "no_target", "set a notification target first", [
      { path: "$", code: "no_target", message: "you have no notification target" },
    ]);
  }
  const now = new Date();
  const channel = assigneeChannel(caller.username, target);
  const sample = sampleNotification(channel.name, now.toISOString());
  const rows = deliveryRowsFor({ ...sample, groupKey: `test:assignee:${caller.userId}` }, channel, "test");
  const ids = await inTransaction((sql) => insertDeliveries(sql, rows, now));
  await wakeDeliveriesEverywhere();
  return reply({ deliveries: ids.map(String) }, { status: 202 });
}

/** `self` routes are for users only (keys are refused before the handler); narrows the caller's type. */
export function userCaller(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new ApiError(403, "forbidden", "for signed-in users only");
  return caller;
}
