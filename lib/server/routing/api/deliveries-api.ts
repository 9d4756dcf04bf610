import { z } from "zod";
import type { DeliveryView } from "@/lib/dashboard/api-types";
import { MASK } from "@/lib/routing/config";
import { deliveryExists, listDeliveries, reviveDeadDelivery } from "../../db/routing-deliveries";
import { ApiError, notFound } from "../../http/api-error";
import { reply } from "../../http/api-route";
import { wakeDeliveriesEverywhere } from "../wake-ups";
import { idParam } from "./read-body";

export const ZDeliveriesQuery = z.object({
  status: z.enum(["pending", "delivered", "dead"]).optional(),
  channel: z.string().min(1).max(64).optional(),
  before: z
    .string()
    .regex(/^\d{1,18}$/)
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

type DeliveryRow = Awaited<ReturnType<typeof listDeliveries>>[number];

/** Slack webhook URLs carry their credential in the path; PagerDuty bodies carry the routing key. */
function safeUrl(row: DeliveryRow): string {
  return row.targetType === "slack" ? `${new URL(row.url).origin}/${MASK}` : row.url;
}

function safeBody(row: DeliveryRow): unknown {
  try {
    const body = JSON.parse(row.body) as Record<string, unknown>;
    return row.targetType === "pagerduty" && "routing_key" in body ? { ...body, routing_key: MASK } : body;
  } catch {
    return null;
  }
}

// The text columns hold only the values the engine writes.
function deliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id.toString(),
    kind: row.kind as DeliveryView["kind"],
    groupKey: row.groupKey,
    channel: row.channel,
    targetIndex: row.targetIndex,
    targetType: row.targetType as DeliveryView["targetType"],
    url: safeUrl(row),
    status: row.status as DeliveryView["status"],
    attempts: row.attempts,
    maxAttempts: row.maxAttempts,
    nextAttemptAt: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    alertFingerprints: row.alertFingerprints,
    body: safeBody(row),
    attemptLog: row.attemptLog.map((a) => ({
      at: a.at.toISOString(),
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      error: a.error,
    })),
  };
}

/** GET deliveries: newest first, each with its attempt log; `?before=<id>` pages back. */
export async function getDeliveries(
  q: z.infer<typeof ZDeliveriesQuery>,
): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }> {
  const rows = await listDeliveries({
    ...(q.status ? { status: q.status } : {}),
    ...(q.channel ? { channel: q.channel } : {}),
    ...(q.before ? { beforeId: BigInt(q.before) } : {}),
    limit: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  return {
    deliveries: page.map(deliveryView),
    nextCursor: rows.length > q.limit ? (page.at(-1)?.id.toString() ?? null) : null,
  };
}

/** POST retry: a dead letter goes back to pending with a fresh set of attempts. */
export async function retryDelivery(id: string) {
  const deliveryId = idParam(id, "delivery");
  if (await reviveDeadDelivery(deliveryId, new Date())) {
    await wakeDeliveriesEverywhere();
    return reply({ id, status: "pending" }, { status: 202 });
  }
  if (!(await deliveryExists(deliveryId))) throw notFound("delivery");
  throw new ApiError(409, "not_dead", "only a dead delivery can be retried", [
    { path: "$.id", code: "not_dead", message: "this delivery is pending or delivered" },
  ]);
}
