import { z } from "zod";
import { STATES } from "@/lib/contract/states";
import type {
  AlertDeliverySummary,
  AlertGroupsAnswer,
  AlertGroupView,
  WorkspaceAlertView,
} from "@/lib/dashboard/routing-api-types";
import { rankAlertGroups } from "@/lib/routing/alert-priority";
import { alertOf } from "@/lib/routing/alert-rows";
import { alertDeliveryStatus, latestNotification, routeNamesById } from "@/lib/routing/alert-workspace";
import { InhibitionIndex, inhibitionSourceStates } from "@/lib/routing/inhibit";
import { compileSilence, findSilence } from "@/lib/routing/silence";
import { SEVERITIES } from "@/lib/routing/types";
import { ZAssigneeFilter } from "@/lib/triage/schemas";
import {
  type AlertDeliveryRow,
  type AlertListRow,
  listAlertsForWorkspace,
  listAlertsOfChain,
  listDeliveriesOfAlerts,
} from "../../db/routing-alert-reads";
import { readFiringAlerts } from "../../db/routing-alerts";
import { activeSilences } from "../../db/routing-silences";
import { planMemberships } from "../group-membership";
import { currentRouting } from "../routing-config";

const RESOLVED_WINDOW_MS = 24 * 3_600_000;
/** As the group flush: the firing alerts an inhibition rule may take its source from. */
const INHIBITION_SOURCES_CAP = 20_000;
/** An alert's newest notifications read: enough for each of its groups' latest one (one per target). */
const DELIVERIES_PER_ALERT = 16;

const asList = (value: unknown) => (typeof value === "string" ? value.split(",").filter(Boolean) : value);

export const ZAlertGroupsQuery = z
  .strictObject({
    status: z.enum(["firing", "resolved", "any"]).default("firing"),
    state: z.preprocess(asList, z.array(z.enum(STATES)).min(1).max(STATES.length)).optional(),
    severity: z.enum(SEVERITIES).optional(),
    receiver: z.string().min(1).max(64).optional(),
    chain: z.string().min(1).max(128).optional(),
    q: z.string().trim().min(1).max(200).optional(),
    assignee: ZAssigneeFilter.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(200),
  })
  .refine((query) => query.status !== "any" || query.chain !== undefined, {
    path: ["status"],
    message: "status=any needs a chain",
  });

type AlertGroupsQuery = z.infer<typeof ZAlertGroupsQuery> & { assigneeUserId?: string };

async function readRows(query: AlertGroupsQuery, now: Date): Promise<AlertListRow[]> {
  if (query.status === "any") {
    const rows = await listAlertsOfChain(query.chain ?? "", query.limit + 1);
    return query.assigneeUserId ? rows.filter((row) => row.assignee?.id === query.assigneeUserId) : rows;
  }
  return listAlertsForWorkspace({
    status: query.status,
    ...(query.state ? { states: query.state } : {}),
    ...(query.severity ? { severity: query.severity } : {}),
    ...(query.chain ? { chainId: query.chain } : {}),
    ...(query.q ? { text: query.q } : {}),
    ...(query.assigneeUserId ? { assigneeUserId: query.assigneeUserId } : {}),
    resolvedSince: new Date(now.getTime() - RESOLVED_WINDOW_MS),
    limit: query.limit + 1,
  });
}

const storedAlert = (row: AlertListRow) => alertOf({ ...row, recordId: null, confirmedAt: null });

function deliverySummary(row: AlertDeliveryRow): AlertDeliverySummary {
  return {
    id: row.id.toString(),
    channel: row.channel,
    targetType: row.targetType,
    status: row.status as AlertDeliverySummary["status"],
    attempts: row.attempts,
    maxAttempts: row.maxAttempts,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  };
}

/**
 * GET alert groups: firing (or, for a day, resolved) alerts grouped as the current routing config groups them —
 * by receiver and notification group — each with what became of its notifications: silenced, inhibited, no
 * target, or the latest delivery's outcome.
 */
export async function getAlertGroups(query: AlertGroupsQuery): Promise<AlertGroupsAnswer> {
  const now = new Date();
  const [read, routing, silences] = await Promise.all([
    readRows(query, now),
    currentRouting(),
    activeSilences(now),
  ]);
  const truncated = read.length > query.limit;
  const rows = read.slice(0, query.limit);
  const { inhibitRules } = routing.compiled;
  const sourceStates = inhibitionSourceStates(inhibitRules);
  const [sources, deliveries] = await Promise.all([
    sourceStates.length === 0 || !rows.some((r) => r.status === "firing")
      ? []
      : readFiringAlerts({ states: sourceStates }, INHIBITION_SOURCES_CAP),
    listDeliveriesOfAlerts(
      rows.map((r) => r.fingerprint),
      DELIVERIES_PER_ALERT,
    ),
  ]);
  const inhibition = new InhibitionIndex(inhibitRules, sources.map(alertOf));
  const compiledSilences = silences.map(compileSilence);
  const names = routeNamesById(routing.compiled.root);
  const byFingerprint = new Map(rows.map((row) => [row.fingerprint, row]));

  function alertView(row: AlertListRow, groupKey: string, receiver: string): WorkspaceAlertView {
    const alert = storedAlert(row);
    const firing = row.status === "firing";
    const silence = firing ? findSilence(alert.labels, compiledSilences, now.getTime()) : undefined;
    const inhibitor = firing && !silence ? inhibition.find(alert) : undefined;
    const carried = deliveries.filter((d) => d.alertFingerprints.includes(row.fingerprint));
    const own = carried.filter((d) => d.groupKey === groupKey);
    // A config edit may have re-keyed the group since: the channel's deliveries still tell the story.
    const mine = own.length > 0 ? own : carried.filter((d) => d.channel === receiver);
    const latest =
      mine.length === 0 ? [] : latestNotification(mine.map((d) => ({ ...d, createdAt: +d.createdAt })));
    const channel = routing.compiled.channels.get(receiver);
    return {
      fingerprint: row.fingerprint,
      chainId: row.chainId,
      sessionId: row.sessionId,
      state: row.state,
      severity: row.severity,
      status: row.status,
      labels: row.labels,
      reasons: row.reasons,
      startsAt: row.startsAt.toISOString(),
      endsAt: row.endsAt?.toISOString() ?? null,
      resolvedBy: row.resolvedBy,
      assignee: row.assignee,
      delivery: alertDeliveryStatus({
        firing,
        silenced: silence !== undefined,
        inhibited: inhibitor !== undefined,
        channelHasTargets: (channel?.targets.length ?? 0) > 0,
        latest,
      }),
      silencedBy: silence?.id ?? null,
      inhibitedBy: inhibitor?.source.chainId ?? null,
      lastNotifiedAt: mine[0]?.createdAt.toISOString() ?? null,
      deliveries: latest.map((d) => deliverySummary({ ...d, createdAt: new Date(d.createdAt) })),
    };
  }

  const planned = planMemberships(routing.compiled, rows.map(storedAlert));
  const groups: AlertGroupView[] = planned.map((group) => {
    const routeId = group.groupKey.slice(0, group.groupKey.indexOf("/"));
    return {
      groupKey: group.groupKey,
      receiver: group.receiver,
      routeId,
      routeName: names.get(routeId) ?? null,
      groupLabels: group.labels,
      alerts: group.fingerprints.flatMap((fp) => {
        const row = byFingerprint.get(fp);
        return row ? [alertView(row, group.groupKey, group.receiver)] : [];
      }),
    };
  });
  const receivers = [...new Set(groups.map((g) => g.receiver))].sort();
  return {
    status: query.status,
    // The worst first: loud before muted, then severity, state danger and age (lib/routing/alert-priority.ts).
    groups: rankAlertGroups(groups.filter((g) => !query.receiver || g.receiver === query.receiver)),
    alertCount: rows.length,
    truncated,
    receivers,
  };
}
