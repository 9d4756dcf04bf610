import { assigneeChannel, parseStoredTarget } from "@/lib/triage/assignee-target";
import type { Notification } from "@/lib/routing/payload";
import type { TChannel } from "@/lib/routing/config";
import { readAssigneeTargets } from "../db/routing-assignees";
import type { Sql } from "../db/sql";

export type AssigneeCopy = { notification: Notification; channel: TChannel };

/**
 * Each notification's copies for the assignees of its alerts who have a target of their own: one per assignee,
 * carrying only their alerts. The copy has its own channel (`assignee:<name>`, so a dead personal webhook waits
 * in a lane of its own and never holds up the team's targets) and its own group key (so the alerts page's
 * delivery status stays the team receiver's).
 */
export async function assigneeCopies(
  sql: Sql,
  notifications: readonly Notification[],
): Promise<AssigneeCopy[]> {
  const fingerprints = [...new Set(notifications.flatMap((n) => n.alerts.map((a) => a.alert.fingerprint)))];
  const rows = await readAssigneeTargets(sql, fingerprints);
  if (rows.length === 0) return [];
  const byFingerprint = new Map(rows.map((row) => [row.fingerprint, row]));
  const copies: AssigneeCopy[] = [];
  for (const notification of notifications) {
    const byUser = new Map<string, { username: string; target: unknown; alerts: Notification["alerts"] }>();
    for (const item of notification.alerts) {
      const row = byFingerprint.get(item.alert.fingerprint);
      if (!row) continue;
      const entry = byUser.get(row.userId) ?? { username: row.username, target: row.target, alerts: [] };
      entry.alerts.push(item);
      byUser.set(row.userId, entry);
    }
    for (const [userId, entry] of byUser) {
      const target = parseStoredTarget(entry.target);
      if (!target) continue;
      copies.push({
        notification: {
          ...notification,
          groupKey: `${notification.groupKey}|assignee:${userId}`,
          alerts: entry.alerts,
        },
        channel: assigneeChannel(entry.username, target),
      });
    }
  }
  return copies;
}
