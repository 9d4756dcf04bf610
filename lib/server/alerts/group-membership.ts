import type { CompiledRouting } from "@/lib/routing/compile";
import { groupKey } from "@/lib/routing/group";
import { matchRoutes } from "@/lib/routing/match";
import type { Alert } from "@/lib/routing/types";
import type { GroupMembers } from "../db/alerting-groups";

export type MembershipChanges = {
  additions: GroupMembers[];
  removals: { groupKey: string; fingerprints: string[] }[];
};

/** The labels a group is keyed on, kept on the group row for display. */
function groupLabels(groupBy: readonly string[], labels: Alert["labels"]): Record<string, string> {
  const names = groupBy.length === 1 && groupBy[0] === "..." ? Object.keys(labels) : groupBy;
  return Object.fromEntries(names.map((name) => [name, labels[name] ?? ""]));
}

/**
 * Where each changed alert belongs now (one group per matched route), and which groups it has left. Resolved alerts
 * keep their groups (their labels did not change) so each group can announce the resolution.
 */
export function planMemberships(
  routing: CompiledRouting,
  alerts: readonly Alert[],
  current: readonly { group_key: string; member_fingerprints: string[] }[],
): MembershipChanges {
  const additions = new Map<string, GroupMembers>();
  const target = new Map<string, Set<string>>();
  for (const alert of alerts) {
    const keys = new Set<string>();
    for (const match of matchRoutes(routing.root, alert.labels)) {
      const key = groupKey(match.routePath, match.groupBy, alert.labels);
      keys.add(key);
      const group = additions.get(key) ?? {
        groupKey: key,
        receiver: match.receiver,
        routePath: match.routePath,
        labels: groupLabels(match.groupBy, alert.labels),
        fingerprints: [],
      };
      group.fingerprints.push(alert.fingerprint);
      additions.set(key, group);
    }
    target.set(alert.fingerprint, keys);
  }
  const removals = current.flatMap((group) => {
    const gone = group.member_fingerprints.filter((fp) => {
      const keys = target.get(fp);
      return keys !== undefined && !keys.has(group.group_key);
    });
    return gone.length > 0 ? [{ groupKey: group.group_key, fingerprints: gone }] : [];
  });
  return { additions: [...additions.values()], removals };
}
