import { z } from "zod";
import { QUEUES, type AssigneeView, type QueueName } from "@/lib/dashboard/api-types";
import { ZAssigneeId } from "@/lib/triage/schemas";
import { appendAuditEvent } from "../db/audit-events";
import { lockChains } from "../db/chain-writes";
import { getPrisma } from "../db/client";
import { prismaSql } from "../db/sql";
import { insertTriageEvent } from "../db/triage-items";
import { ApiError, notFound } from "../http/api-error";
import { actorName, type Caller } from "../http/authenticate";
import { checkAssignee } from "../team/assignee-check";
import { auditActor } from "./triage-audit";

export const ZAlertAssigneeBody = z.discriminatedUnion(
  "action",
  [
    z.strictObject({ action: z.literal("assign"), assigneeId: ZAssigneeId }),
    z.strictObject({ action: z.literal("unassign") }),
  ],
  {
    error: (issue) =>
      issue.code === "invalid_union" ? "action must be assign or unassign" : "expected a JSON object",
  },
);
export type AlertAssigneeBody = z.infer<typeof ZAlertAssigneeBody>;

const isQueue = (state: string): state is QueueName => (QUEUES as readonly string[]).includes(state);

/**
 * Assigns an alert (the alerts page's picker). When the alert's state is a triage queue, the chain's item in that
 * queue, if it has one, gets the same assignee, with an event on the chain's trail: one owner for the item and its
 * alert. Under the chain's lock, as every writer of its alerts and items.
 */
export async function assignAlert(
  fingerprint: string,
  body: AlertAssigneeBody,
  caller: Caller,
): Promise<{ fingerprint: string; assignee: AssigneeView | null }> {
  if (!/^[0-9a-f]{16}$/.test(fingerprint)) throw notFound("alert");
  return getPrisma().$transaction(async (tx) => {
    const found = await tx.alert.findUnique({ where: { fingerprint }, select: { chainId: true } });
    if (!found) throw notFound("alert");
    await lockChains(prismaSql(tx), [found.chainId]);
    const alert = await tx.alert.findUnique({
      where: { fingerprint },
      select: {
        chainId: true,
        state: true,
        status: true,
        assignee: { select: { id: true, username: true, displayName: true } },
      },
    });
    if (!alert) throw notFound("alert");
    const next = body.action === "assign" ? await checkAssignee(tx, body.assigneeId) : null;
    if ((alert.assignee?.id ?? null) === (next?.id ?? null)) {
      const message = next
        ? `the alert is already assigned to ${next.username}`
        : "the alert is assigned to nobody";
      throw new ApiError(409, "invalid_transition", message, [
        { path: "$.action", code: "invalid_transition", message },
      ]);
    }
    await tx.alert.update({ where: { fingerprint }, data: { assigneeUserId: next?.id ?? null } });
    const actor = actorName(caller);
    if (isQueue(alert.state)) {
      const item = await tx.triageItem.updateMany({
        where: { chainId: alert.chainId, queue: alert.state },
        data: { assigneeUserId: next?.id ?? null, updatedAt: new Date() },
      });
      // A firing alert's chain is in the queue: its first triage action may be this assignment.
      const created =
        item.count === 0 && alert.status === "firing" && next
          ? await tx.triageItem.create({
              data: { chainId: alert.chainId, queue: alert.state, assigneeUserId: next.id },
            })
          : null;
      if (item.count > 0 || created) {
        await insertTriageEvent(tx, {
          chainId: alert.chainId,
          queue: alert.state,
          actor,
          action: body.action,
          note: null,
          data: { from: alert.assignee?.username ?? null, to: next?.username ?? null, via: "alert" },
        });
      }
    }
    await appendAuditEvent(tx, {
      ...auditActor(caller),
      action: `alert.${body.action}`,
      targetType: "alert",
      targetId: fingerprint,
      before: { chainId: alert.chainId, state: alert.state, assignee: alert.assignee },
      after: { chainId: alert.chainId, state: alert.state, assignee: next },
    });
    return { fingerprint, assignee: next };
  });
}
