import { z } from "zod";
import { MASK, type TChannel, ZSlackTarget, ZWebhookTarget } from "@/lib/routing/config";

// A user's own notification target: where the alerts of the items assigned to them go, beside the team's
// receivers. The same URL rules as the routing config's webhook and Slack targets, so the delivery path is theirs.

const webhookShape = ZWebhookTarget.shape;
export const ZNotificationTargetBody = z.discriminatedUnion(
  "kind",
  [
    z.strictObject({
      kind: z.literal("webhook"),
      url: webhookShape.url,
      secret: webhookShape.secret.optional(),
    }),
    z.strictObject({ kind: z.literal("slack"), url: ZSlackTarget.shape.url }),
  ],
  {
    error: (issue) =>
      issue.code === "invalid_union" ? "kind must be 'webhook' or 'slack'" : "expected a JSON object",
  },
);
export type NotificationTarget = z.infer<typeof ZNotificationTargetBody>;

/** What the API shows of a stored target: its kind and host; the path (Slack's token) and the secret masked. */
export type NotificationTargetView = { kind: NotificationTarget["kind"]; url: string; signed: boolean };

export function maskNotificationTarget(target: NotificationTarget): NotificationTargetView {
  return {
    kind: target.kind,
    url: `${new URL(target.url).origin}/${MASK}`,
    signed: target.kind === "webhook" && target.secret !== undefined,
  };
}

/** A stored value read back from `users.notification_target`; anything else reads as no target. */
export function parseStoredTarget(value: unknown): NotificationTarget | null {
  const parsed = ZNotificationTargetBody.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The channel a user's copy is sent through: its own name, so its deliveries have a lane of their own. */
export const assigneeChannelName = (username: string) => `assignee:${username}`;

export function assigneeChannel(username: string, target: NotificationTarget): TChannel {
  const name = assigneeChannelName(username);
  return {
    name,
    ownerRole: "assignee",
    targets: [
      target.kind === "slack"
        ? { type: "slack", url: target.url }
        : // Without a secret the delivery goes out unsigned: the worker signs only with a non-empty key.
          { type: "webhook", url: target.url, secret: target.secret ?? "" },
    ],
  };
}
