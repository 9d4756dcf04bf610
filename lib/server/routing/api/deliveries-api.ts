import { z } from "zod";
import type { DeliveryView } from "@/lib/dashboard/routing-api-types";
import { parseGroupKey, routeNamesById } from "@/lib/routing/alert-workspace";
import { MASK, maskUrlCredential, urlCarriesCredential } from "@/lib/routing/config";
import {
  deliveryIdsOfAlerts,
  readAlertFingerprintsOfChain,
  readChainsOfAlerts,
} from "../../db/routing-alert-reads";
import type { AuditActor } from "../../audit/audit-actor";
import { appendAuditEventSql } from "../../db/audit-events";
import { deliveryExists, listDeliveries, reviveDeadDelivery } from "../../db/routing-deliveries";
import { inTransaction } from "../../db/sql";
import { ApiError, notFound } from "../../http/api-error";
import { reply } from "../../http/api-route";
import { currentRouting } from "../routing-config";
import { wakeDeliveriesEverywhere } from "../wake-ups";
import { idParam } from "./read-body";

export const ZDeliveriesQuery = z.strictObject({
  status: z.enum(["pending", "delivered", "dead"]).optional(),
  channel: z.string().min(1).max(64).optional(),
  /** Only the deliveries that carried one of this chain's alerts. */
  chain: z.string().min(1).max(128).optional(),
  before: z
    .string()
    .regex(/^\d{1,18}$/)
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

type DeliveryRow = Awaited<ReturnType<typeof listDeliveries>>[number];

/**
 * Slack webhook URLs carry their credential in the path, a webhook's may in its user or query (`?token=`); PagerDuty
 * bodies carry the routing key.
 */
function safeUrl(row: DeliveryRow): string {
  if (row.targetType === "slack") return `${new URL(row.url).origin}/${MASK}`;
  return urlCarriesCredential(row.url) ? maskUrlCredential(row.url, MASK) : row.url;
}

function safeBody(row: DeliveryRow): unknown {
  try {
    const body = JSON.parse(row.body) as Record<string, unknown>;
    return row.targetType === "pagerduty" && "routing_key" in body ? { ...body, routing_key: MASK } : body;
  } catch {
    return null;
  }
}

type Links = {
  routeNames: ReadonlyMap<string, string>;
  chains: ReadonlyMap<string, { fingerprint: string; chainId: string; state: string }>;
};

function groupOf(row: DeliveryRow, links: Links): DeliveryView["group"] {
  const parsed = row.kind === "notification" ? parseGroupKey(row.groupKey) : null;
  if (!parsed) return null;
  return {
    routeId: parsed.routeId,
    routeName: links.routeNames.get(parsed.routeId) ?? null,
    labels: parsed.labels,
  };
}

// The text columns hold only the values the engine writes.
function deliveryView(row: DeliveryRow, links: Links): DeliveryView {
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
    group: groupOf(row, links),
    alerts: row.alertFingerprints.flatMap((fp) => {
      const chain = links.chains.get(fp);
      return chain ? [chain] : [];
    }),
    body: safeBody(row),
    attemptLog: row.attemptLog.map((a) => ({
      at: a.at.toISOString(),
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      error: a.error,
    })),
  };
}

/**
 * GET deliveries: newest first, each with its attempt log, its route and group labels, and its alerts' chains;
 * `?before=<id>` pages back, `?chain=` keeps those that carried one of the chain's alerts.
 */
export async function getDeliveries(
  q: z.infer<typeof ZDeliveriesQuery>,
): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }> {
  const filter = {
    ...(q.status ? { status: q.status } : {}),
    ...(q.channel ? { channel: q.channel } : {}),
    ...(q.before ? { beforeId: BigInt(q.before) } : {}),
    limit: q.limit + 1,
  };
  const fingerprints = q.chain ? await readAlertFingerprintsOfChain(q.chain) : undefined;
  if (fingerprints?.length === 0) return { deliveries: [], nextCursor: null };
  const ids = fingerprints ? await deliveryIdsOfAlerts(fingerprints, filter) : undefined;
  const [rows, routing] = await Promise.all([
    ids?.length === 0 ? [] : listDeliveries({ ...filter, ...(ids ? { ids } : {}) }),
    currentRouting(),
  ]);
  const page = rows.slice(0, q.limit);
  const chains = await readChainsOfAlerts(page.flatMap((row) => row.alertFingerprints));
  const links: Links = {
    routeNames: routeNamesById(routing.compiled.root),
    chains: new Map(chains.map((c) => [c.fingerprint, c])),
  };
  return {
    deliveries: page.map((row) => deliveryView(row, links)),
    nextCursor: rows.length > q.limit ? (page.at(-1)?.id.toString() ?? null) : null,
  };
}

/** POST retry: a dead letter goes back to pending with a fresh set of attempts; the retry and its audit commit together. */
export async function retryDelivery(id: string, actor: AuditActor) {
  const deliveryId = idParam(id, "delivery");
  const revived = await inTransaction(async (sql) => {
    const before = await reviveDeadDelivery(sql, deliveryId, new Date());
    if (before)
      await appendAuditEventSql(sql, {
        ...actor,
        action: "delivery.retry",
        targetType: "delivery",
        targetId: deliveryId.toString(),
        before: { ...before, status: "dead" },
        after: { ...before, status: "pending", attempts: 0 },
      });
    return before !== null;
  });
  if (revived) {
    await wakeDeliveriesEverywhere();
    return reply({ id, status: "pending" }, { status: 202 });
  }
  if (!(await deliveryExists(deliveryId))) throw notFound("delivery");
  throw new ApiError(409, "not_dead", "only a dead delivery can be retried", [
    { path: "$.id", code: "not_dead", message: "this delivery is pending or delivered" },
  ]);
}
