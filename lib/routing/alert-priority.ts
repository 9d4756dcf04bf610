// The order of the alerts page (Alertmanager's UI, PagerDuty): the worst first. An alert that still reaches a person
// ("loud": neither silenced nor inhibited) outranks a muted one; then severity, then how dangerous its state is
// (a possible duplicate write or a success that is not one first), then age (burning longest first). Groups take the
// rank of their worst alert and carry a summary line: what is worst, how many are loud, how many muted. Pure.
import { SEVERITIES } from "./types";

/** How dangerous each state is to leave alone, most first; a state not listed ranks last. */
export const STATE_DANGER = [
  "false_success",
  "effect_unknown",
  "needs_auth",
  "incompatible_session",
  "tool_failed",
  "protocol_error",
  "stale_catalog",
  "unverified",
  "working",
  "healthy",
] as const;

export type RankedAlert = {
  severity: string;
  state: string;
  startsAt: string;
  status: "firing" | "resolved";
  delivery: string;
};

export const isMuted = (alert: Pick<RankedAlert, "delivery">): boolean =>
  alert.delivery === "silenced" || alert.delivery === "inhibited";

const rankOf = (list: readonly string[], value: string) => {
  const index = list.indexOf(value);
  return index < 0 ? list.length : index;
};

/** Negative when `a` comes first. */
export function compareAlerts(a: RankedAlert, b: RankedAlert): number {
  return (
    Number(isMuted(a)) - Number(isMuted(b)) ||
    Number(a.status !== "firing") - Number(b.status !== "firing") ||
    rankOf(SEVERITIES, a.severity) - rankOf(SEVERITIES, b.severity) ||
    rankOf(STATE_DANGER, a.state) - rankOf(STATE_DANGER, b.state) ||
    Date.parse(a.startsAt) - Date.parse(b.startsAt)
  );
}

export type GroupSummary = {
  /** Alerts that still reach a person, and those a silence or an inhibition rule mutes. */
  loud: number;
  muted: number;
  /** The worst alert's severity and state (of the loud ones, if any). */
  worstSeverity: string | null;
  worstState: string | null;
  /** When the oldest loud alert started. */
  oldestLoudAt: string | null;
};

export function summarizeGroup(alerts: readonly RankedAlert[]): GroupSummary {
  const sorted = [...alerts].sort(compareAlerts);
  const loud = sorted.filter((alert) => !isMuted(alert));
  const worst = sorted[0];
  const oldest = loud.map((alert) => alert.startsAt).sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  return {
    loud: loud.length,
    muted: sorted.length - loud.length,
    worstSeverity: worst?.severity ?? null,
    worstState: worst?.state ?? null,
    oldestLoudAt: oldest ?? null,
  };
}

/** Each group's alerts worst first, and the groups by their worst alert. */
export function rankAlertGroups<A extends RankedAlert, G extends { alerts: A[] }>(groups: readonly G[]): G[] {
  const sorted = groups.map((group) => ({ ...group, alerts: [...group.alerts].sort(compareAlerts) }));
  return sorted.sort((a, b) => {
    const [worstA, worstB] = [a.alerts[0], b.alerts[0]];
    if (!worstA || !worstB) return Number(!worstA) - Number(!worstB);
    return compareAlerts(worstA, worstB);
  });
}
