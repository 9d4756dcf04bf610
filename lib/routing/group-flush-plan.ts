import type { CompiledRouting } from "./compile";
import { type EvaluateOptions, evaluateAlert, type RoutedMatch } from "./evaluate";
import { alertReadyAt, nextGroupAction } from "./group";
import type { Notification, NotifiedAlert } from "./payload";
import type { Severity } from "./types";
import { alertOf, type MemberAlert } from "./alert-rows";

export type GroupSnapshot = {
  groupKey: string;
  /** The channel the group notified: where an alert that was routed away is told it resolved here. */
  receiver: string;
  firstSeenAt: Date;
  lastSentAt: Date | null;
  lastSentFingerprints: string[];
  members: string[];
};

export type FlushPlan = {
  /** The notification to send now, if any. */
  notification?: Notification;
  /** No member left: the group row goes (a later alert starts a fresh group). */
  drop: boolean;
  members: string[];
  lastSentAt: Date | null;
  lastSentFingerprints: string[];
  nextActionAt: Date | null;
};

const byStart = (a: Member, b: Member) =>
  a.row.startsAt.getTime() - b.row.startsAt.getTime() || (a.row.fingerprint < b.row.fingerprint ? -1 : 1);

type Member = { row: MemberAlert; severity: Severity; endsAt?: Date };

// Without context: the caller reads contexts only for the alerts actually sent (see group-flush.ts).
const notified = ({ row, severity, endsAt }: Member, status: "firing" | "resolved"): NotifiedAlert => {
  const ended = endsAt ?? row.endsAt;
  return {
    alert: alertOf(row),
    status,
    startsAt: row.startsAt.toISOString(),
    ...(status === "resolved" && ended ? { endsAt: ended.toISOString() } : {}),
    severity,
  };
};

/**
 * One group's decision at `now` (Alertmanager's aggregation group, made durable). Members are sorted into:
 * notifying (firing, not silenced or inhibited, past any route delay), pending (still inside a route's bounded
 * wait), muted (silenced or inhibited: neither announced nor reported resolved), and resolved (announced firing
 * earlier, so the resolution must be sent). Timing follows nextGroupAction: groupWait, groupInterval, repeatInterval.
 * An alert this group announced that now routes elsewhere (its route really changed: another receiver or groupBy, or
 * the route is gone) is resolved here too, on the group's stored receiver; its new group announces it as firing.
 * When no member routes here any more there is no route to time the group by: the resolutions go at once and the
 * group is dropped.
 */
export function planGroupFlush(
  group: GroupSnapshot,
  alerts: readonly MemberAlert[],
  routing: CompiledRouting,
  nowMs: number,
  options: EvaluateOptions,
): FlushPlan {
  const rows = new Map(alerts.map((a) => [a.fingerprint, a]));
  const lastSent = new Set(group.lastSentFingerprints);
  const notifying: Member[] = [];
  const resolved: Member[] = [];
  const wakeUps: number[] = [];
  const members: string[] = [];
  let timing: RoutedMatch | undefined;
  for (const fingerprint of group.members) {
    const row = rows.get(fingerprint);
    if (!row) continue;
    const decision = evaluateAlert(routing, alertOf(row), nowMs, options);
    const match = decision.routes.find((r) => r.groupKey === group.groupKey);
    if (!match) {
      // Routed elsewhere since (config changed). Announced here: take it back here. Never announced: just leave.
      if (lastSent.has(fingerprint)) {
        resolved.push({ row, severity: alertOf(row).severity, endsAt: row.endsAt ?? new Date(nowMs) });
        members.push(fingerprint);
      }
      continue;
    }
    timing ??= match;
    if (row.status !== "firing") {
      // Resolved before it was ever announced: nothing to take back.
      if (lastSent.has(fingerprint)) {
        resolved.push({ row, severity: match.severity });
        members.push(fingerprint);
      }
      continue;
    }
    members.push(fingerprint);
    if (!decision.notifies) {
      // Re-check muted alerts every groupInterval: a silence may end, an inhibiting alert may resolve.
      wakeUps.push(nowMs + match.groupInterval);
      continue;
    }
    const readyAt = alertReadyAt({
      firingSince: row.startsAt.getTime(),
      delayMs: match.delayMs,
      confirmOnNextRecord: match.confirmOnNextRecord,
      confirmedAt: row.confirmedAt?.getTime(),
    });
    if (readyAt > nowMs) wakeUps.push(readyAt);
    else notifying.push({ row, severity: match.severity });
  }
  const keep = { lastSentAt: group.lastSentAt, lastSentFingerprints: group.lastSentFingerprints };
  if (members.length === 0) return { drop: true, members: [], ...keep, nextActionAt: null };
  if (!timing) return takeBack(group, resolved, nowMs);

  notifying.sort(byStart);
  const firing = notifying.map((m) => m.row.fingerprint);
  const firingSet = new Set(firing);
  const resolvedSet = new Set(resolved.map((m) => m.row.fingerprint));
  // Muted, pending or departed alerts are not part of what the receiver is told changed. (Sets: a group can hold
  // tens of thousands of alerts.)
  const comparable = group.lastSentFingerprints.filter((fp) => firingSet.has(fp) || resolvedSet.has(fp));
  const state = (lastSentAt: Date | null, sent: string[]) => ({
    firstSeenAt: group.firstSeenAt.getTime(),
    ...(lastSentAt ? { lastSentAt: lastSentAt.getTime() } : {}),
    lastSentFingerprints: sent,
  });
  const action = nextGroupAction(state(group.lastSentAt, comparable), firing, nowMs, timing);

  let plan: FlushPlan = { drop: false, members, ...keep, nextActionAt: null };
  let after = action;
  if (action.action === "send") {
    const now = new Date(nowMs);
    resolved.sort(byStart);
    plan = {
      notification: {
        groupKey: group.groupKey,
        receiver: group.receiver,
        alerts: [
          ...notifying.map((m) => notified(m, "firing")),
          ...resolved.map((m) => notified(m, "resolved")),
        ],
      },
      drop: false,
      members: members.filter((fp) => !resolvedSet.has(fp)),
      lastSentAt: now,
      lastSentFingerprints: firing,
      nextActionAt: null,
    };
    after = nextGroupAction(state(now, firing), firing, nowMs, timing);
  }
  if (after.action === "wait") wakeUps.push(after.until);
  plan.drop = plan.members.length === 0;
  plan.nextActionAt = wakeUps.length > 0 ? new Date(Math.min(...wakeUps)) : null;
  return plan;
}

/** Every member left for another group: the announced ones are resolved on this group's receiver, and it goes. */
function takeBack(group: GroupSnapshot, resolved: Member[], nowMs: number): FlushPlan {
  resolved.sort(byStart);
  return {
    notification: {
      groupKey: group.groupKey,
      receiver: group.receiver,
      alerts: resolved.map((m) => notified(m, "resolved")),
    },
    drop: true,
    members: [],
    lastSentAt: new Date(nowMs),
    lastSentFingerprints: [],
    nextActionAt: null,
  };
}
