import type { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

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
 */
export async function insertConfigVersion(
  input: { config: unknown; createdBy: string; comment: string | null; baseVersion?: bigint | null },
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
    await rerouteFiringAlerts(tx, new Date());
    return row.id;
  });
}

async function currentId(tx: Tx): Promise<bigint | null> {
  const row = await tx.routingConfigVersion.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
  return row?.id ?? null;
}

/** Routes, silences or inhibition changed: every firing alert is routed again and every group re-evaluated. */
export async function rerouteFiringAlerts(tx: Tx, now: Date): Promise<void> {
  await tx.$executeRaw`insert into alert_outbox (fingerprint, chain_id, event)
    select fingerprint, chain_id, 'updated' from alerts where status = 'firing' order by fingerprint`;
  await tx.$executeRaw`update notification_groups set next_action_at = ${now}`;
}
