import type { Prisma } from "@/lib/generated/prisma/client";
import { STORED_ALERT_SQL, storedAlertColumns } from "./alerting-alerts";
import { getPrisma } from "./client";
import { prismaSql } from "./sql";

type Tx = Prisma.TransactionClient;

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

/**
 * Adds members, creating groups as needed, and schedules each group's next evaluation no later than a notification
 * could be due: groupWait after the first alert, groupInterval after the last send — capped at groupWait from now,
 * so a busy group is re-evaluated at that pace rather than on every new alert. A group left empty starts afresh: a
 * new first alert waits groupWait again instead of inheriting an old group's clock. (The read of the current row is
 * not locked; a stale read can only make the evaluation earlier, never later.)
 */
export async function addGroupMembers(tx: Tx, groups: GroupMembers[], now: Date): Promise<void> {
  if (groups.length === 0) return;
  // Sorted: two writers that lock several groups always take them in the same order.
  const sorted = [...groups].sort((a, b) => (a.groupKey < b.groupKey ? -1 : 1));
  const col = <T>(pick: (g: GroupMembers) => T) => sorted.map(pick);
  // The group rows first: a flush holding one of them (FOR UPDATE) makes this wait until it has committed, so the
  // members added below are never in the set that flush decided about.
  await tx.$executeRaw`
    insert into notification_groups as g (group_key, receiver, route_path, labels, first_seen_at, last_sent_at,
      last_sent_fingerprints, next_action_at, updated_at)
    select u.group_key, u.receiver, u.route_path, u.labels, ${now}, null, '{}',
      case when cur.group_key is null
          or not exists (select 1 from notification_group_members m where m.group_key = u.group_key)
        then ${now}::timestamptz + u.wait_ms * interval '1 millisecond'
        else greatest(${now}::timestamptz, least(${now}::timestamptz + u.wait_ms * interval '1 millisecond',
          case when cur.last_sent_at is null then cur.first_seen_at + u.wait_ms * interval '1 millisecond'
            else cur.last_sent_at + u.interval_ms * interval '1 millisecond' end)) end,
      ${now}
    from unnest(${col((g) => g.groupKey)}::text[], ${col((g) => g.receiver)}::text[],
      ${col((g) => g.routePath)}::text[], ${col((g) => JSON.stringify(g.labels))}::jsonb[],
      ${col((g) => g.groupWaitMs)}::bigint[], ${col((g) => g.groupIntervalMs)}::bigint[])
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
      updated_at = excluded.updated_at`;
  // One row per member, so adding alerts to a group of thousands writes only the new ones.
  const members = sorted.flatMap((g) =>
    [...new Set(g.fingerprints)].sort().map((fp) => [g.groupKey, fp] as const),
  );
  await tx.$executeRaw`insert into notification_group_members (group_key, fingerprint)
    select * from unnest(${members.map(([key]) => key)}::text[], ${members.map(([, fp]) => fp)}::text[])
    on conflict do nothing`;
}

/** A cheap check before a flush loads silences and firing alerts: is any group due at all? */
export async function anyGroupDue(now: Date): Promise<boolean> {
  const row = await getPrisma().notificationGroup.findFirst({
    where: { nextActionAt: { lte: now } },
    select: { groupKey: true },
  });
  return row !== null;
}

/** Due groups, locked for this transaction; another instance's flush skips them (and takes the next ones). */
export async function claimDueGroups(tx: Tx, now: Date, limit: number) {
  const rows = await tx.$queryRaw<
    {
      group_key: string;
      first_seen_at: Date;
      last_sent_at: Date | null;
      last_sent_fingerprints: string[] | null;
    }[]
  >`select group_key, first_seen_at, last_sent_at, last_sent_fingerprints
    from notification_groups where next_action_at <= ${now}
    order by next_action_at limit ${limit} for update skip locked`;
  if (rows.length === 0) return [];
  const members = await tx.$queryRaw<{ group_key: string; fingerprints: string[] }[]>`
    select group_key, array_agg(fingerprint) as fingerprints from notification_group_members
    where group_key = any(${rows.map((row) => row.group_key)}::text[]) group by group_key`;
  const membersOf = new Map(members.map((row) => [row.group_key, row.fingerprints]));
  return rows.map((row) => ({
    groupKey: row.group_key,
    firstSeenAt: row.first_seen_at,
    lastSentAt: row.last_sent_at,
    lastSentFingerprints: row.last_sent_fingerprints ?? [],
    members: membersOf.get(row.group_key) ?? [],
  }));
}

/** What a flush decides on; the (larger) context is read only for the alerts that are actually sent. */
export const memberAlertColumns = {
  ...storedAlertColumns,
  startsAt: true,
  endsAt: true,
} satisfies Prisma.AlertSelect;

export type MemberAlert = Prisma.AlertGetPayload<{ select: typeof memberAlertColumns }>;

// Plain statements below: a busy group has thousands of members, and Prisma's `in` lists cost per element.

export async function readAlertContexts(tx: Tx, fingerprints: string[]): Promise<Map<string, unknown>> {
  if (fingerprints.length === 0) return new Map();
  const rows = await prismaSql(tx).query<{ fingerprint: string; context: unknown }>(
    "select fingerprint, context from alerts where fingerprint = any($1::text[])",
    [fingerprints],
  );
  return new Map(rows.map((row) => [row.fingerprint, row.context]));
}

export async function readMemberAlerts(tx: Tx, fingerprints: string[]): Promise<MemberAlert[]> {
  if (fingerprints.length === 0) return [];
  return prismaSql(tx).query<MemberAlert>(
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
export async function saveGroupStates(tx: Tx, groups: GroupState[], now: Date): Promise<void> {
  if (groups.length === 0) return;
  await tx.$executeRaw`
    update notification_groups g set
      last_sent_at = u.last_sent_at,
      last_sent_fingerprints = array(select jsonb_array_elements_text(u.last_sent)),
      next_action_at = u.next_action_at, updated_at = ${now}
    from unnest(${groups.map((g) => g.groupKey)}::text[], ${groups.map((g) => g.lastSentAt)}::timestamptz[],
      ${groups.map((g) => JSON.stringify(g.lastSentFingerprints))}::jsonb[],
      ${groups.map((g) => g.nextActionAt)}::timestamptz[])
      as u(group_key, last_sent_at, last_sent, next_action_at)
    where g.group_key = u.group_key`;
  const dropped = groups.flatMap((g) => g.dropped.map((fp) => [g.groupKey, fp] as const));
  if (dropped.length === 0) return;
  await tx.$executeRaw`delete from notification_group_members m
    using unnest(${dropped.map(([key]) => key)}::text[], ${dropped.map(([, fp]) => fp)}::text[]) as u(group_key, fp)
    where m.group_key = u.group_key and m.fingerprint = u.fp`;
}

export async function deleteGroups(tx: Tx, groupKeys: string[]): Promise<void> {
  if (groupKeys.length === 0) return;
  await tx.notificationGroup.deleteMany({ where: { groupKey: { in: groupKeys } } });
}
