import { SET_ASIDE_JOBS } from "./set-aside";
import type { Sql } from "./sql";

// Group keys written before routes had a stable identity began with the route's JSON path ("$.route.routes[5]:{…}").
// No new key starts with "$" (route ids start with a letter, a digit or "r~"), so the prefix finds exactly the old
// ones and a second run finds none.
const LEGACY = "$.route%";

export type LegacyGroupKey = {
  groupKey: string;
  /** The group's channel; for a delivery whose group is gone, the channel it was sent to. */
  receiver: string;
};

/** Every old-format group key still stored: on groups, and on deliveries whose group has gone since. */
export async function readLegacyGroupKeys(sql: Sql): Promise<LegacyGroupKey[]> {
  return sql.query<LegacyGroupKey>(
    `select group_key as "groupKey", receiver from notification_groups where group_key like $1
    union
    select distinct d.group_key, d.channel from deliveries d
      where d.group_key like $1 and not exists (select 1 from notification_groups g where g.group_key = d.group_key)`,
    [LEGACY],
  );
}

/**
 * Renames group keys everywhere one is stored: the group, its members, its deliveries and a set-aside flush.
 * Nothing else changes (last sent time, last sent alerts, next evaluation), so nothing is sent again. A rename onto a
 * key that already has a group is skipped: the two groups' states cannot be merged without deciding what was sent.
 * Returns the groups renamed.
 */
export async function renameGroupKeys(
  sql: Sql,
  renames: ReadonlyArray<{ from: string; to: string }>,
): Promise<number> {
  if (renames.length === 0) return 0;
  const taken = new Set(
    (
      await sql.query<{ group_key: string }>(
        "select group_key from notification_groups where group_key = any($1::text[])",
        [renames.map((r) => r.to)],
      )
    ).map((row) => row.group_key),
  );
  const free = renames.filter((r) => !taken.has(r.to));
  if (free.length === 0) return 0;
  const values = [free.map((r) => r.from), free.map((r) => r.to)];
  const renamed = await sql.execute(
    `update notification_groups g set group_key = u.new_key from unnest($1::text[], $2::text[]) as u(old_key, new_key)
      where g.group_key = u.old_key`,
    values,
  );
  await sql.execute(
    `update notification_group_members m set group_key = u.new_key
      from unnest($1::text[], $2::text[]) as u(old_key, new_key) where m.group_key = u.old_key`,
    values,
  );
  await sql.execute(
    `update deliveries d set group_key = u.new_key from unnest($1::text[], $2::text[]) as u(old_key, new_key)
      where d.group_key = u.old_key`,
    values,
  );
  await sql.execute(
    `update set_aside_items s set item_key = u.new_key from unnest($1::text[], $2::text[]) as u(old_key, new_key)
      where s.job = $3 and s.item_key = u.old_key`,
    [...values, SET_ASIDE_JOBS.groupFlush],
  );
  return renamed;
}

/** Held for the rename: an instance adding members or flushing meanwhile would write under a key about to change. */
export async function lockGroupsForRekey(sql: Sql): Promise<void> {
  await sql.execute(
    "lock table notification_groups, notification_group_members, deliveries in exclusive mode",
  );
}
