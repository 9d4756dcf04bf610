// What the alerts page and the chain page say about an alert: which notification group it sits in, whether anyone
// was told (the delivery status), and what a silence being drafted would mute. Pure: the server reads the rows and
// calls these with the same matcher and silence code the delivery worker uses.
import type { CompiledRoute } from "./compile";
import type { Matcher } from "./matcher";
import { allMatch } from "./matcher";
import { type CompiledSilence, findSilence } from "./silence";
import { type AlertLabels, isProtectedState } from "./types";

/** What became of an alert's notifications, most telling first. */
export const ALERT_DELIVERY_STATUSES = [
  "silenced",
  "inhibited",
  "no_target",
  "failed",
  "retrying",
  "sending",
  "delivered",
  "waiting",
] as const;
export type AlertDeliveryStatus = (typeof ALERT_DELIVERY_STATUSES)[number];

/** A delivery as far as an alert's status is concerned. */
export type DeliveryFact = { status: string; attempts: number; createdAt: number };

/**
 * The alert's status in one group. A firing alert that is muted says so (a silence, then an inhibition); a channel
 * without targets tells no one; otherwise the latest notification that carried it decides: any target dead is a
 * failure, a target still being retried is retrying, all delivered is delivered. No notification yet: waiting
 * (group wait, a route delay, or the worker not there yet).
 */
export function alertDeliveryStatus(input: {
  firing: boolean;
  silenced: boolean;
  inhibited: boolean;
  channelHasTargets: boolean;
  /** The deliveries of the latest notification of this group that carried the alert, one per target. */
  latest: readonly DeliveryFact[];
}): AlertDeliveryStatus {
  if (input.firing && input.silenced) return "silenced";
  if (input.firing && input.inhibited) return "inhibited";
  if (input.latest.length === 0) return input.channelHasTargets ? "waiting" : "no_target";
  if (input.latest.some((d) => d.status === "dead")) return "failed";
  if (input.latest.some((d) => d.status === "pending" && d.attempts > 0)) return "retrying";
  if (input.latest.some((d) => d.status === "pending")) return "sending";
  return "delivered";
}

/** The deliveries of the newest notification among these (those created at the newest time: one per target). */
export function latestNotification<T extends DeliveryFact>(deliveries: readonly T[]): T[] {
  const newest = Math.max(...deliveries.map((d) => d.createdAt));
  return deliveries.filter((d) => d.createdAt === newest);
}

/**
 * A group key is `<routeId>/<receiver>:{name="value",...}` (group.ts). Its parts, for display; null when the text
 * is not one (a test notification's key, a legacy path-keyed group).
 */
export function parseGroupKey(
  key: string,
): { routeId: string; receiver: string; labels: Record<string, string> } | null {
  const match = /^([^/]+)\/([^:]+):\{(.*)\}$/s.exec(key);
  if (!match) return null;
  const [, routeId = "", receiver = "", body = ""] = match;
  const labels: Record<string, string> = {};
  const pair = /([^=,]+)=("(?:[^"\\]|\\.)*")/gy;
  let at = 0;
  while (at < body.length) {
    pair.lastIndex = at;
    const found = pair.exec(body);
    if (!found) return null;
    try {
      labels[found[1] ?? ""] = JSON.parse(found[2] ?? '""') as string;
    } catch {
      return null;
    }
    at = pair.lastIndex;
    if (body[at] === ",") at += 1;
  }
  return { routeId, receiver, labels };
}

export type PreviewAlert = { fingerprint: string; state: string; labels: AlertLabels };

export type SilencePreview<T extends PreviewAlert> = {
  /** Firing alerts the silence would mute. */
  muted: T[];
  /** Protected alerts its matchers match that it would still let through: it does not name their state. */
  keptProtected: T[];
};

/**
 * What a silence with these matchers would do to the alerts firing now, decided by the silences' own findSilence
 * (so the protected-state rule applies exactly as in the worker).
 */
export function previewSilence<T extends PreviewAlert>(
  matchers: readonly Matcher[],
  firing: readonly T[],
  nowMs: number,
): SilencePreview<T> {
  const draft: CompiledSilence = {
    id: "preview",
    matchers: [...matchers],
    startsAtMs: nowMs,
    endsAtMs: nowMs + 1,
    createdBy: "",
    comment: "",
  };
  const muted: T[] = [];
  const keptProtected: T[] = [];
  for (const alert of firing) {
    if (findSilence(alert.labels, [draft], nowMs)) muted.push(alert);
    else if (isProtectedState(alert.state) && allMatch(draft.matchers, alert.labels))
      keptProtected.push(alert);
  }
  return { muted, keptProtected };
}

/** Matchers that select exactly this alert's labels: what "Silence…" starts from (the operator narrows or widens). */
export function matchersForLabels(labels: AlertLabels, names: readonly string[]): string[] {
  return names
    .filter((name) => labels[name] !== undefined && labels[name] !== "")
    .map((name) => `${name}=${JSON.stringify(labels[name])}`);
}

/** The equality matchers among these, as label pairs a database can pre-filter on (containment). */
export function equalityLabels(matchers: readonly Matcher[]): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const m of matchers) if (m.op === "=" && m.value !== "") pairs[m.name] = m.value;
  return pairs;
}

/** Route id → name, for the routes that have one: how the pages name a group's route. */
export function routeNamesById(route: CompiledRoute, into = new Map<string, string>()): Map<string, string> {
  if (route.name) into.set(route.id, route.name);
  for (const child of route.routes) routeNamesById(child, into);
  return into;
}
