import type { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";
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
export async function newestConfigVersionId(): Promise<bigint | null> {
  const row = await getPrisma().routingConfigVersion.findFirst({
    orderBy: { id: "desc" },
    select: { id: true },
  });
  return row?.id ?? null;
}

export async function readConfigVersion(id: bigint): Promise<ConfigVersionRow | null> {
  return getPrisma().routingConfigVersion.findUnique({ where: { id } });
}

export async function listConfigVersions(limit: number) {
  return getPrisma().routingConfigVersion.findMany({
    orderBy: { id: "desc" },
    take: limit,
    select: { id: true, createdAt: true, createdBy: true, comment: true },
  });
}

/**
 * Saves a new current version and re-routes every firing alert under it (one "updated" outbox event each), in one
 * transaction. Serialised by an advisory lock so two saves cannot both claim to follow the same base version.
 * `channelsGainingTargets`: channels that had no targets, or fewer, before this version (see rerouteFiringAlerts).
 */
export async function insertConfigVersion(
  input: {
    config: unknown;
    createdBy: string;
    comment: string | null;
    baseVersion?: bigint | null;
    channelsGainingTargets?: readonly string[];
  },
  onConflict: (current: bigint | null) => Error,
): Promise<bigint> {
  return getPrisma().$transaction(async (tx) => {
    await tx.$executeRaw`select pg_advisory_xact_lock(hashtextextended('receipt:routing-config', 0))`;
    if (input.baseVersion !== undefined) {
      const current = await currentId(tx);
      if (current !== input.baseVersion) throw onConflict(current);
    }
    const row = await tx.routingConfigVersion.create({
      data: {
        config: input.config as Prisma.InputJsonValue,
        createdBy: input.createdBy,
        comment: input.comment,
      },
      select: { id: true },
    });
    await rerouteFiringAlerts(tx, new Date(), input.channelsGainingTargets ?? []);
    return row.id;
  });
}

async function currentId(tx: Tx): Promise<bigint | null> {
  const row = await tx.routingConfigVersion.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
  return row?.id ?? null;
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
  await tx.$executeRaw`update notification_groups set next_action_at = ${now}`;
  if (channelsGainingTargets.length > 0)
    await tx.$executeRaw`update notification_groups set last_sent_fingerprints = '{}'
      where receiver = any(${[...channelsGainingTargets]}::text[])`;
  await notifyWakeInPrisma(tx, WAKE_CHANNELS.alertOutbox);
}
