import type { Sql } from "./sql";

export type AssigneeTargetRow = { fingerprint: string; userId: string; username: string; target: unknown };

/**
 * The assignee of each of these alerts who has a notification target and is not disabled (their copy of the
 * alert's notifications goes there). One statement through the alerts' primary key and the users' one.
 */
export async function readAssigneeTargets(sql: Sql, fingerprints: string[]): Promise<AssigneeTargetRow[]> {
  if (fingerprints.length === 0) return [];
  return sql.query<AssigneeTargetRow>(
    `select a.fingerprint, u.id::text as "userId", u.username, u.notification_target as target
      from alerts a join users u on u.id = a.assignee_user_id
      where a.fingerprint = any($1::text[]) and u.notification_target is not null and u.disabled_at is null`,
    [fingerprints],
  );
}
