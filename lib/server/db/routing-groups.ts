import type { MemberAlert } from "@/lib/routing/alert-rows";
import { lockKeys } from "./key-locks";
import { STORED_ALERT_SQL } from "./routing-alerts";
import { poolSql, prepared, type Sql } from "./sql";

// Notification groups (Alertmanager's aggregation groups), persisted so timing survives restarts and is shared by
// every app instance. The outbox processor adds members; the flush (groups claimed with FOR UPDATE SKIP LOCKED)
// decides and records what was sent, and drops members that resolved or are now routed elsewhere.

export type GroupMembers = {
  groupKey: string;
  receiver: string;
  routePath: string;
  labels: Record<string, string>;
  fingerprints: string[];
  /** The route's timing, to schedule the group's next evaluation. */
  groupWaitMs: number;
  groupIntervalMs: number;
};

// Prepared: routing runs them for every alert, and their plans cannot depend on the rows (inserts from arrays, an
// EXISTS on the next_action_at index).
const ADD_GROUPS = prepared(
  "receipt_add_groups",
  `insert into notification_groups as g (group_key, receiver, route_path, labels, first_seen_at, last_sent_at,
      last_sent_fingerprints, next_action_at, updated_at)
    select u.group_key, u.receiver, u.route_path, u.labels, $1, null, '{}',
      case when cur.group_key is null
          or not exists (select 1 from notification_group_members m where m.group_key = u.group_key)
        then $1::timestamptz + u.wait_ms * interval '1 millisecond'
        else cur.first_seen_at + (u.wait_ms + u.interval_ms * ((greatest(0,
            round(extract(epoch from $1::timestamptz - cur.first_seen_at) * 1000)::bigint - u.wait_ms)
            + u.interval_ms - 1) / u.interval_ms)) * interval '1 millisecond' end,
      $1
    from unnest($2::text[], $3::text[], $4::text[], $5::jsonb[], $6::bigint[], $7::bigint[])
      with ordinality as u(group_key, receiver, route_path, labels, wait_ms, interval_ms, n)
    left join notification_groups cur on cur.group_key = u.group_key
    order by u.n
    on conflict (group_key) do update set
      first_seen_at = case when not exists (select 1 from notification_group_members m where m.group_key = g.group_key)
        then excluded.first_seen_at else g.first_seen_at end,
      last_sent_at = case when not exists (select 1 from notification_group_members m where m.group_key = g.group_key)
        then null else g.last_sent_at end,
      last_sent_fingerprints = case when not exists
          (select 1 from notification_group_members m where m.group_key = g.group_key)
        then '{}' else g.last_sent_fingerprints end,
      receiver = excluded.receiver, route_path = excluded.route_path, labels = excluded.labels,
      next_action_at = least(coalesce(g.next_action_at, excluded.next_action_at), excluded.next_action_at),
      updated_at = excluded.updated_at
    -- A group that already has members, the same route and an evaluation no later is locked, not rewritten: a busy
    -- group's row was rewritten by every batch that touched it (a new row version, and index entries while
    -- next_action_at is indexed), 3 ms a batch of 100 once routing ran in the ingesting transaction. Not returned.
    where not exists (select 1 from notification_group_members m where m.group_key = g.group_key)
      or g.next_action_at is null or excluded.next_action_at < g.next_action_at
      or g.receiver <> excluded.receiver or g.route_path <> excluded.route_path or g.labels <> excluded.labels
    returning g.group_key as "groupKey", g.next_action_at as "nextActionAt"`,
);
const ADD_MEMBERS = prepared(
  "receipt_add_group_members",
  `insert into notification_group_members (group_key, fingerprint)
    select * from unnest($1::text[], $2::text[]) on conflict do nothing`,
);
const ANY_GROUP_DUE = prepared(
  "receipt_any_group_due",
  "select exists (select 1 from notification_groups where next_action_at <= $1) as due",
);

/**
 * Adds members, creating groups as needed, and schedules each group's next evaluation for its first flush tick at or
 * after now (nextGroupAction's cadence: firstSeenAt + groupWait, then every groupInterval), when the change can first
 * be sent. Not sooner: an evaluation reads and routes every member, seconds of CPU for a group of tens of thousands,
 * and one that cannot send is wasted. An earlier wake-up a flush planned (a delayed alert's ready time, a muted
 * alert's re-check) is kept. A group left empty starts afresh: a new first alert waits groupWait again instead of
 * inheriting an old group's clock. (The read of the current row is not locked; a stale read can only make the
 * evaluation earlier, never later.) Returns the groups created or rescheduled, with their next evaluation; a group left
 * as it was (its evaluation is no later than this change needs) is locked but not returned.
 */
export async function addGroupMembers(
  sql: Sql,
  groups: GroupMembers[],
  now: Date,
): Promise<{ groupKey: string; nextActionAt: Date | null }[]> {
  if (groups.length === 0) return [];
  // Sorted: two writers that lock several groups always take them in the same order.
  const sorted = [...groups].sort((a, b) => (a.groupKey < b.groupKey ? -1 : 1));
  const col = <T>(pick: (g: GroupMembers) => T) => sorted.map(pick);
  // Routers one at a time per group (the routing job and every transaction routing at commit): the upsert below reads
  // the group's current row unlocked, before it waits for the row, so a router that waited for another's commit would
  // schedule from the row as it was (an empty group: due at once) and send a second notification now.
  await lockKeys(
    sql,
    "notification-groups",
    sorted.map((g) => g.groupKey),
  );
  // The group rows first: a flush holding one of them (FOR UPDATE) makes this wait until it has committed, so the
  // members added below are never in the set that flush decided about.
  const scheduled = await sql.query<{ groupKey: string; nextActionAt: Date | null }>(ADD_GROUPS, [
    now,
    col((g) => g.groupKey),
    col((g) => g.receiver),
    col((g) => g.routePath),
    col((g) => JSON.stringify(g.labels)),
    col((g) => g.groupWaitMs),
    col((g) => g.groupIntervalMs),
  ]);
  // One row per member, so adding alerts to a group of thousands writes only the new ones.
  const members = sorted.flatMap((g) =>
    [...new Set(g.fingerprints)].sort().map((fp) => [g.groupKey, fp] as const),
  );
  await sql.execute(ADD_MEMBERS, [members.map(([key]) => key), members.map(([, fp]) => fp)]);
  return scheduled;
}

/** A cheap check before a flush loads silences and firing alerts: is any group due at all? */
export async function anyGroupDue(now: Date): Promise<boolean> {
  const [row] = await poolSql().query<{ due: boolean }>(ANY_GROUP_DUE, [now]);
  return row?.due ?? false;
}

/** When the next group is due (any instance's): the flush timer is armed for it (notification_groups_next_action_at_idx). */
export async function earliestGroupAction(): Promise<Date | null> {
  const [row] = await poolSql().query<{ next: Date | null }>(
    "select min(next_action_at) as next from notification_groups",
  );
  return row?.next ?? null;
}

/** Due groups, locked for this transaction; another instance's flush skips them (and takes the next ones). */
export async function claimDueGroups(sql: Sql, now: Date, limit: number) {
  const rows = await sql.query<GroupRow>(
    `select ${GROUP_COLUMNS} from notification_groups where next_action_at <= $1
      order by next_action_at limit $2 for update skip locked`,
    [now, limit],
  );
  return withMembers(sql, rows);
}

/**
 * The named groups that are due, locked for this transaction (waiting for a flush that holds one): a transaction that
 * has just added members to them (route-at-commit.ts) holds them already.
 */
export async function claimDueGroupsNamed(sql: Sql, groupKeys: string[], now: Date) {
  if (groupKeys.length === 0) return [];
  // Their members in the same statement: the groups are few and fresh (one round trip less on the way to a page).
  const rows = await sql.query<GroupRow & { members: string[] }>(
    `select ${GROUP_COLUMNS},
        array(select m.fingerprint from notification_group_members m where m.group_key = g.group_key) as members
      from notification_groups g where group_key = any($1::text[]) and next_action_at <= $2
      order by group_key for update`,
    [groupKeys, now],
  );
  return rows.map((row) => snapshotOf(row, row.members));
}

type GroupRow = {
  group_key: string;
  receiver: string;
  first_seen_at: Date;
  last_sent_at: Date | null;
  last_sent_fingerprints: string[] | null;
};
const GROUP_COLUMNS = "group_key, receiver, first_seen_at, last_sent_at, last_sent_fingerprints";

async function withMembers(sql: Sql, rows: GroupRow[]) {
  if (rows.length === 0) return [];
  const members = await sql.query<{ group_key: string; fingerprints: string[] }>(
    `select group_key, array_agg(fingerprint) as fingerprints from notification_group_members
      where group_key = any($1::text[]) group by group_key`,
    [rows.map((row) => row.group_key)],
  );
  const membersOf = new Map(members.map((row) => [row.group_key, row.fingerprints]));
  return rows.map((row) => snapshotOf(row, membersOf.get(row.group_key) ?? []));
}

function snapshotOf(row: GroupRow, members: string[]) {
  return {
    groupKey: row.group_key,
    receiver: row.receiver,
    firstSeenAt: row.first_seen_at,
    lastSentAt: row.last_sent_at,
    lastSentFingerprints: row.last_sent_fingerprints ?? [],
    members,
  };
}

/** What a flush decides on; the (larger) context is read only for the alerts that are actually sent. */

// Plain statements: a busy group has thousands of members.

export async function readAlertContexts(sql: Sql, fingerprints: string[]): Promise<Map<string, unknown>> {
  if (fingerprints.length === 0) return new Map();
  const rows = await sql.query<{ fingerprint: string; context: unknown }>(
    "select fingerprint, context from alerts where fingerprint = any($1::text[])",
    [fingerprints],
  );
  return new Map(rows.map((row) => [row.fingerprint, row.context]));
}

export async function readMemberAlerts(sql: Sql, fingerprints: string[]): Promise<MemberAlert[]> {
  if (fingerprints.length === 0) return [];
  return sql.query<MemberAlert>(
    `select ${STORED_ALERT_SQL}, starts_at as "startsAt", ends_at as "endsAt"
      from alerts where fingerprint = any($1::text[])`,
    [fingerprints],
  );
}

export type GroupState = {
  groupKey: string;
  /** Members the flush let go (their resolution was sent, or they now route elsewhere). */
  dropped: string[];
  lastSentAt: Date | null;
  lastSentFingerprints: string[];
  nextActionAt: Date | null;
};

/** Writes the flushed groups' state: one statement for the groups, one for the members they let go. */
export async function saveGroupStates(sql: Sql, groups: GroupState[], now: Date): Promise<void> {
  if (groups.length === 0) return;
  await sql.execute(
    `update notification_groups g set
      last_sent_at = u.last_sent_at,
      last_sent_fingerprints = array(select jsonb_array_elements_text(u.last_sent)),
      next_action_at = u.next_action_at, updated_at = $1
    from unnest($2::text[], $3::timestamptz[], $4::jsonb[], $5::timestamptz[])
      as u(group_key, last_sent_at, last_sent, next_action_at)
    where g.group_key = u.group_key`,
    [
      now,
      groups.map((g) => g.groupKey),
      groups.map((g) => g.lastSentAt),
      groups.map((g) => JSON.stringify(g.lastSentFingerprints)),
      groups.map((g) => g.nextActionAt),
    ],
  );
  const dropped = groups.flatMap((g) => g.dropped.map((fp) => [g.groupKey, fp] as const));
  if (dropped.length === 0) return;
  await sql.execute(
    `delete from notification_group_members m
      using unnest($1::text[], $2::text[]) as u(group_key, fp)
      where m.group_key = u.group_key and m.fingerprint = u.fp`,
    [dropped.map(([key]) => key), dropped.map(([, fp]) => fp)],
  );
}

/** Groups with nothing left to announce, and their members (no foreign key: one check per member insert). */
export async function deleteGroups(sql: Sql, groupKeys: string[]): Promise<void> {
  if (groupKeys.length === 0) return;
  await sql.execute("delete from notification_group_members where group_key = any($1::text[])", [groupKeys]);
  await sql.execute("delete from notification_groups where group_key = any($1::text[])", [groupKeys]);
}

/** Groups no flush should take up until a member is added (addGroupMembers schedules them again). */
export async function unscheduleGroups(sql: Sql, groupKeys: string[]): Promise<void> {
  if (groupKeys.length === 0) return;
  await sql.execute(
    "update notification_groups set next_action_at = null where group_key = any($1::text[])",
    [groupKeys],
  );
}

/**
 * Retention: deletes up to `limit` groups with no member left (every alert of theirs resolved, announced and gone)
 * and unchanged since `cutoff`: a group with a firing alert, or a resolved one not yet announced, has members. A
 * group a flush holds is skipped. A later alert of the same key starts a new group, as an emptied one would
 * (addGroupMembers). Returns how many groups went.
 */
export async function deleteIdleGroups(sql: Sql, cutoff: Date, limit: number): Promise<number> {
  return sql.execute(
    `delete from notification_groups where group_key = any(array(
      select g.group_key from notification_groups g
        where g.updated_at < $1::timestamptz
          and not exists (select 1 from notification_group_members m where m.group_key = g.group_key)
        limit $2::int for update skip locked))`,
    [cutoff.toISOString(), limit],
  );
}
