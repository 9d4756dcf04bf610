// Grouping and notification timing, as pure functions of state and `now` (the delivery worker
// persists the state; these decide). Semantics follow Alertmanager:
//  - a new group waits groupWait, so alerts arriving together go out in one notification;
//  - after that the group flushes every groupInterval (a cadence anchored at its first flush), and a change (alerts
//    added or resolved) goes out at the first flush tick at or after it;
//  - an unchanged group that is still firing is re-sent at the first tick at or after repeatInterval.
import type { AlertLabels } from "./types";

const quote = (value: string): string => JSON.stringify(value);

/** What a group key is made of: the matched route's stable id, its receiver and its groupBy. */
export interface GroupKeyRoute {
  routeId: string;
  receiver: string;
  groupBy: readonly string[];
}

/**
 * Stable identity of a notification group: the route's id (route-id.ts: unmoved by edits to other routes), its
 * receiver and the values of its groupBy labels (sorted, so label order in the config does not matter), as
 * `<routeId>/<receiver>:{name="value",...}`. A changed receiver or groupBy is a different group: the route really
 * changed. Receivers deduplicate on it. `groupBy: ["..."]` groups by every label, i.e. one group per alert.
 */
export function groupKey(route: GroupKeyRoute, labels: AlertLabels): string {
  const { groupBy } = route;
  const names = groupBy.length === 1 && groupBy[0] === "..." ? Object.keys(labels) : groupBy;
  const pairs = [...new Set(names)].sort().map((name) => `${name}=${quote(labels[name] ?? "")}`);
  return `${route.routeId}/${route.receiver}:{${pairs.join(",")}}`;
}

export interface GroupState {
  /** When the group's first alert arrived (ms). */
  firstSeenAt: number;
  /** When the last notification went out (ms); undefined before the first. */
  lastSentAt?: number;
  /** Fingerprints that were firing in the last notification. */
  lastSentFingerprints: readonly string[];
}

export interface GroupTiming {
  groupWait: number;
  groupInterval: number;
  repeatInterval: number;
}

export type GroupAction =
  | { action: "send"; why: "group_wait" | "group_interval" | "repeat_interval" }
  | { action: "wait"; until: number; why: "group_wait" | "group_interval" | "repeat_interval" }
  /** Nothing to tell anyone: no firing alert was ever sent, or the last send already said it all. */
  | { action: "idle" };

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
};

/**
 * The group's flush cadence (Alertmanager's aggregation-group timer): the first flush at firstSeenAt + groupWait, then
 * one every groupInterval after it. These return the tick at or before `at`, and the first tick at or after `at`.
 */
export function flushTickAtOrBefore(group: Pick<GroupState, "firstSeenAt">, at: number, timing: GroupTiming) {
  const anchor = group.firstSeenAt + timing.groupWait;
  const interval = Math.max(timing.groupInterval, 1);
  return at <= anchor ? anchor : anchor + Math.floor((at - anchor) / interval) * interval;
}

export function flushTickAtOrAfter(group: Pick<GroupState, "firstSeenAt">, at: number, timing: GroupTiming) {
  const anchor = group.firstSeenAt + timing.groupWait;
  const interval = Math.max(timing.groupInterval, 1);
  return at <= anchor ? anchor : anchor + Math.ceil((at - anchor) / interval) * interval;
}

/**
 * Decide whether a group notifies now. `firingFingerprints` are the group's alerts firing now
 * (after silences, inhibition and per-route delay). A notification lists the firing alerts and
 * those resolved since the last send; status is "resolved" once nothing fires.
 *
 * groupInterval is a cadence, not a distance from the last send: a changed group is sent when a flush tick has
 * passed since the last send (at most one notification per tick); an unchanged firing group is re-sent at the first
 * tick at or after the last send's tick + repeatInterval (measured from the tick, so a late flush does not push the
 * repeat one interval later).
 */
export function nextGroupAction(
  group: GroupState,
  firingFingerprints: readonly string[],
  now: number,
  timing: GroupTiming,
): GroupAction {
  const firstTick = group.firstSeenAt + timing.groupWait;
  if (group.lastSentAt === undefined) {
    // Alerts that resolved before the first flush were never announced, so they need no resolve.
    if (firingFingerprints.length === 0) return { action: "idle" };
    return now >= firstTick
      ? { action: "send", why: "group_wait" }
      : { action: "wait", until: firstTick, why: "group_wait" };
  }
  const lastSentAt = group.lastSentAt;
  if (!sameSet(firingFingerprints, group.lastSentFingerprints)) {
    if (now < firstTick) return { action: "wait", until: firstTick, why: "group_interval" };
    const tick = flushTickAtOrBefore(group, now, timing);
    return tick > lastSentAt
      ? { action: "send", why: "group_interval" }
      : { action: "wait", until: tick + Math.max(timing.groupInterval, 1), why: "group_interval" };
  }
  if (firingFingerprints.length === 0) return { action: "idle" };
  const due = flushTickAtOrAfter(
    group,
    flushTickAtOrBefore(group, lastSentAt, timing) + timing.repeatInterval,
    timing,
  );
  return now >= due
    ? { action: "send", why: "repeat_interval" }
    : { action: "wait", until: due, why: "repeat_interval" };
}

/** Fingerprints to report as resolved in the next notification: sent as firing, no longer firing. */
export function resolvedSinceLastSend(group: GroupState, firingFingerprints: readonly string[]): string[] {
  const firing = new Set(firingFingerprints);
  return group.lastSentFingerprints.filter((fp) => !firing.has(fp));
}

/**
 * When an alert matched by a route with `delay` may join its group (ms). A route's delay is a
 * bounded wait (stale_catalog's one re-discovery, unverified's pending verifier): the alert
 * notifies only if still firing then. With confirmOnNextRecord, a newer record of the chain still
 * in the same state ends the wait early (`confirmedAt`: that record's observedAt).
 */
export function alertReadyAt(input: {
  firingSince: number;
  delayMs: number;
  confirmOnNextRecord: boolean;
  confirmedAt?: number;
}): number {
  const deadline = input.firingSince + input.delayMs;
  if (input.confirmOnNextRecord && input.confirmedAt !== undefined && input.confirmedAt > input.firingSince) {
    return Math.min(deadline, input.confirmedAt);
  }
  return deadline;
}
