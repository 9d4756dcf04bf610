import type { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";
import { poolSql, prepared, type Sql } from "./sql";
import { notifyWakeInPrisma, WAKE_CHANNELS } from "./wake-notify";

type Tx = Prisma.TransactionClient;

export type ConfigVersionRow = {
  id: bigint;
  config: unknown;
  createdAt: Date;
  createdBy: string;
  comment: string | null;
};

/** The id of the newest config version, or null while the shipped default is in force. */
export async function newestConfigVersionId(sql: Sql = poolSql()): Promise<bigint | null> {
  const [row] = await sql.query<{ id: bigint }>(NEWEST_VERSION);
  return row?.id ?? null;
}

// Read by every routing run (each ingestion that changed an alert starts one): a prepared statement costs a third of
// the app's CPU that Prisma's query took here, and half its time.
const NEWEST_VERSION = prepared(
  "receipt_newest_routing_version",
  "select id from routing_config_versions order by id desc limit 1",
);

export async function readConfigVersion(id: bigint): Promise<ConfigVersionRow | null> {
  return getPrisma().routingConfigVersion.findUnique({ where: { id } });
}

/** A version's config; on `sql` when given (a transaction reading it takes no second connection from the pool). */
export async function readConfigOfVersion(id: bigint, sql: Sql = poolSql()): Promise<unknown> {
  const [row] = await sql.query<{ config: unknown }>(
    "select config from routing_config_versions where id = $1",
    [id],
  );
  return row?.config;
}

export async function listConfigVersions(limit: number) {
  return getPrisma().routingConfigVersion.findMany({
    orderBy: { id: "desc" },
    take: limit,
    select: { id: true, createdAt: true, createdBy: true, comment: true },
  });
}

/** One page of the history, newest first: versions older than `before` (all when null), `limit` of them. */
export async function listConfigVersionsPage(input: { before: bigint | null; limit: number }) {
  return getPrisma().routingConfigVersion.findMany({
    where: input.before === null ? {} : { id: { lt: input.before } },
    orderBy: { id: "desc" },
    take: input.limit,
    select: { id: true, createdAt: true, createdBy: true, comment: true },
  });
}

/** Serialises config saves for the caller's transaction: two saves cannot both follow the same base version. */
export async function lockConfigVersions(tx: Tx): Promise<void> {
  await tx.$executeRaw`select pg_advisory_xact_lock(hashtextextended('receipt:routing-config', 0))`;
}

const LOCK_CONFIG_SHARED = prepared(
  "receipt_lock_routing_config_shared",
  "select pg_advisory_xact_lock_shared(hashtextextended('receipt:routing-config', 0))",
);

/**
 * The config lock, shared, for a transaction that routes alerts itself (route-at-commit.ts): a config save waits for
 * it to commit, so the save's re-routing of every firing alert includes its alerts; or it waits for the save and then
 * reads the new version (in a statement of its own: a statement's snapshot is taken before its lock wait).
 */
export async function lockConfigShared(sql: Sql): Promise<void> {
  await sql.query(LOCK_CONFIG_SHARED);
}

/** The newest version's id as the caller's transaction sees it (null: the shipped default). */
export async function currentConfigVersionId(tx: Tx): Promise<bigint | null> {
  const row = await tx.routingConfigVersion.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
  return row?.id ?? null;
}

/** A new config version; returns its id. */
export async function insertConfigVersion(
  tx: Tx,
  input: { config: unknown; createdBy: string; comment: string | null },
): Promise<bigint> {
  const row = await tx.routingConfigVersion.create({
    data: {
      config: input.config as Prisma.InputJsonValue,
      createdBy: input.createdBy,
      comment: input.comment,
    },
    select: { id: true },
  });
  return row.id;
}

/**
 * Routes, silences or inhibition changed: every firing alert is routed again and every group re-evaluated (routing
 * on every instance is woken at commit).
 *
 * A flush of a group whose channel had no target advanced the group as if sent, so its firing alerts would reach a
 * target added later only after repeatInterval. For the channels gaining targets, each group forgets what it "sent":
 * its firing alerts count as new, and go out at the group's next flush tick (within groupInterval); alerts resolved
 * meanwhile were never told to anyone and are dropped silently.
 */
export async function rerouteFiringAlerts(
  tx: Tx,
  now: Date,
  channelsGainingTargets: readonly string[] = [],
): Promise<void> {
  await tx.$executeRaw`insert into alert_outbox (fingerprint, chain_id, event)
    select fingerprint, chain_id, 'updated' from alerts where status = 'firing' order by fingerprint`;
  // Groups in key order, as the outbox processor locks them (addGroupMembers): unordered, it deadlocked with
  // ingestion and the alert jobs (issue 39 §5).
  await tx.$executeRaw`update notification_groups g set next_action_at = ${now}
    from (select group_key from notification_groups order by group_key for update) locked
    where g.group_key = locked.group_key`;
  if (channelsGainingTargets.length > 0)
    await tx.$executeRaw`update notification_groups set last_sent_fingerprints = '{}'
      where receiver = any(${[...channelsGainingTargets]}::text[])`;
  await notifyWakeInPrisma(tx, WAKE_CHANNELS.alertOutbox);
}
