import type { Prisma } from "@/lib/generated/prisma/client";
import { storedAlertColumns } from "./alerting-alerts";
import { getPrisma } from "./client";

type Tx = Prisma.TransactionClient;

// Notification groups (Alertmanager's aggregation groups), persisted so timing survives restarts and is shared by
// every app instance. The outbox processor adds and removes members; the flush (one group at a time, claimed with
// FOR UPDATE SKIP LOCKED) decides and records what was sent.

export type GroupMembers = {
  groupKey: string;
  receiver: string;
  routePath: string;
  labels: Record<string, string>;
  fingerprints: string[];
};

export async function groupsContaining(tx: Tx, fingerprints: string[]) {
  if (fingerprints.length === 0) return [];
  return tx.$queryRaw<{ group_key: string; member_fingerprints: string[] }[]>`
    select group_key, coalesce(member_fingerprints, '{}') as member_fingerprints from notification_groups
    where member_fingerprints && ${fingerprints}::text[]`;
}

/**
 * Adds members (creating groups as needed) and wakes the groups now. A group left empty starts afresh: a new first
 * alert waits groupWait again rather than inheriting an old group's clock.
 */
export async function addGroupMembers(tx: Tx, groups: GroupMembers[], now: Date): Promise<void> {
  if (groups.length === 0) return;
  // Sorted: two writers that lock several groups always take them in the same order.
  const sorted = [...groups].sort((a, b) => (a.groupKey < b.groupKey ? -1 : 1));
  await tx.$executeRaw`
    insert into notification_groups as g (group_key, receiver, route_path, labels, first_seen_at, last_sent_at,
      last_sent_fingerprints, next_action_at, updated_at, member_fingerprints)
    select u.group_key, u.receiver, u.route_path, u.labels, ${now}, null, '{}', ${now}, ${now},
      array(select jsonb_array_elements_text(u.members))
    from unnest(${sorted.map((g) => g.groupKey)}::text[], ${sorted.map((g) => g.receiver)}::text[],
      ${sorted.map((g) => g.routePath)}::text[], ${sorted.map((g) => JSON.stringify(g.labels))}::jsonb[],
      ${sorted.map((g) => JSON.stringify(g.fingerprints))}::jsonb[])
      with ordinality as u(group_key, receiver, route_path, labels, members, n)
    order by u.n
    on conflict (group_key) do update set
      member_fingerprints = array(select distinct m from unnest(coalesce(g.member_fingerprints, '{}')
        || excluded.member_fingerprints) as m),
      first_seen_at = case when cardinality(coalesce(g.member_fingerprints, '{}')) = 0
        then excluded.first_seen_at else g.first_seen_at end,
      last_sent_at = case when cardinality(coalesce(g.member_fingerprints, '{}')) = 0
        then null else g.last_sent_at end,
      last_sent_fingerprints = case when cardinality(coalesce(g.member_fingerprints, '{}')) = 0
        then '{}' else g.last_sent_fingerprints end,
      receiver = excluded.receiver, route_path = excluded.route_path, labels = excluded.labels,
      next_action_at = excluded.next_action_at, updated_at = excluded.updated_at`;
}

/** Removes alerts that are now routed elsewhere, and wakes those groups. */
export async function removeGroupMembers(
  tx: Tx,
  removals: { groupKey: string; fingerprints: string[] }[],
  now: Date,
): Promise<void> {
  if (removals.length === 0) return;
  await tx.$executeRaw`
    update notification_groups g set
      member_fingerprints = array(select m from unnest(g.member_fingerprints) as m
        where m <> all(array(select jsonb_array_elements_text(u.gone)))),
      next_action_at = ${now}, updated_at = ${now}
    from unnest(${removals.map((r) => r.groupKey)}::text[], ${removals.map((r) => JSON.stringify(r.fingerprints))}::jsonb[])
      as u(group_key, gone)
    where g.group_key = u.group_key`;
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
      member_fingerprints: string[] | null;
    }[]
  >`select group_key, first_seen_at, last_sent_at, last_sent_fingerprints, member_fingerprints
    from notification_groups where next_action_at <= ${now}
    order by next_action_at limit ${limit} for update skip locked`;
  return rows.map((row) => ({
    groupKey: row.group_key,
    firstSeenAt: row.first_seen_at,
    lastSentAt: row.last_sent_at,
    lastSentFingerprints: row.last_sent_fingerprints ?? [],
    members: row.member_fingerprints ?? [],
  }));
}

export const memberAlertColumns = {
  ...storedAlertColumns,
  startsAt: true,
  endsAt: true,
  context: true,
} satisfies Prisma.AlertSelect;

export type MemberAlert = Prisma.AlertGetPayload<{ select: typeof memberAlertColumns }>;

export async function readMemberAlerts(tx: Tx, fingerprints: string[]): Promise<MemberAlert[]> {
  if (fingerprints.length === 0) return [];
  return tx.alert.findMany({ where: { fingerprint: { in: fingerprints } }, select: memberAlertColumns });
}

export type GroupState = {
  groupKey: string;
  members: string[];
  lastSentAt: Date | null;
  lastSentFingerprints: string[];
  nextActionAt: Date | null;
};

/** Writes the flushed groups' state in one statement. */
export async function saveGroupStates(tx: Tx, groups: GroupState[], now: Date): Promise<void> {
  if (groups.length === 0) return;
  await tx.$executeRaw`
    update notification_groups g set
      member_fingerprints = array(select jsonb_array_elements_text(u.members)),
      last_sent_at = u.last_sent_at,
      last_sent_fingerprints = array(select jsonb_array_elements_text(u.last_sent)),
      next_action_at = u.next_action_at, updated_at = ${now}
    from unnest(${groups.map((g) => g.groupKey)}::text[], ${groups.map((g) => JSON.stringify(g.members))}::jsonb[],
      ${groups.map((g) => g.lastSentAt)}::timestamptz[],
      ${groups.map((g) => JSON.stringify(g.lastSentFingerprints))}::jsonb[],
      ${groups.map((g) => g.nextActionAt)}::timestamptz[])
      as u(group_key, members, last_sent_at, last_sent, next_action_at)
    where g.group_key = u.group_key`;
}

export async function deleteGroups(tx: Tx, groupKeys: string[]): Promise<void> {
  if (groupKeys.length === 0) return;
  await tx.notificationGroup.deleteMany({ where: { groupKey: { in: groupKeys } } });
}
