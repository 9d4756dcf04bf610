import type { CompiledRouting } from "@/lib/routing/compile";
import { groupKey } from "@/lib/routing/group";
import { matchRoutes } from "@/lib/routing/match";
import type { Alert } from "@/lib/routing/types";
import type { GroupMembers } from "../db/routing-groups";

/** The labels a group is keyed on, kept on the group row for display. */
function groupLabels(groupBy: readonly string[], labels: Alert["labels"]): Record<string, string> {
  const names = groupBy.length === 1 && groupBy[0] === "..." ? Object.keys(labels) : groupBy;
  return Object.fromEntries(names.map((name) => [name, labels[name] ?? ""]));
}

/**
 * The groups each changed alert belongs to now (one per matched route). Resolved alerts keep their groups (their
 * labels did not change) so each group can announce the resolution. Groups an alert has left (a config change, a
 * reason routed elsewhere) are not told: their next flush sees it no longer routes there and drops it silently.
 */
export function planMemberships(routing: CompiledRouting, alerts: readonly Alert[]): GroupMembers[] {
  const groups = new Map<string, GroupMembers>();
  for (const alert of alerts) {
    for (const match of matchRoutes(routing.root, alert.labels)) {
      const key = groupKey(match, alert.labels);
      const group = groups.get(key) ?? {
        groupKey: key,
        receiver: match.receiver,
        routePath: match.routePath,
        labels: groupLabels(match.groupBy, alert.labels),
        fingerprints: [],
        groupWaitMs: match.groupWait,
        groupIntervalMs: match.groupInterval,
      };
      group.fingerprints.push(alert.fingerprint);
      groups.set(key, group);
    }
  }
  return [...groups.values()];
}

/** Memberships planned alert by alert, merged into one entry per group (a write must name each group once). */
export function mergeMemberships(groups: readonly GroupMembers[]): GroupMembers[] {
  const merged = new Map<string, GroupMembers>();
  for (const group of groups) {
    const known = merged.get(group.groupKey);
    if (known) known.fingerprints.push(...group.fingerprints);
    else merged.set(group.groupKey, { ...group, fingerprints: [...group.fingerprints] });
  }
  return [...merged.values()];
}
