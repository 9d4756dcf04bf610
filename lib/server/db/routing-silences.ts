import type { Prisma } from "@/lib/generated/prisma/client";
import type { TSilence } from "@/lib/routing/config";
import { getPrisma } from "./client";

export type SilenceRow = {
  id: string;
  matchers: string[];
  startsAt: Date;
  endsAt: Date;
  createdBy: string;
  comment: string;
  createdAt: Date;
  expiredAt: Date | null;
};

export type SilenceInput = { matchers: string[]; startsAt: Date; endsAt: Date; comment: string };

/** Silences that are or will be in force, and those that ended within `recentMs` (for the UI's history). */
export async function listSilences(now: Date, recentMs: number): Promise<SilenceRow[]> {
  return getPrisma().silence.findMany({
    where: { endsAt: { gt: new Date(now.getTime() - recentMs) } },
    orderBy: [{ endsAt: "desc" }, { createdAt: "desc" }],
    take: 500,
  });
}

/** Silences in force at `now`, in the routing domain's shape. */
export async function activeSilences(now: Date): Promise<TSilence[]> {
  const rows = await getPrisma().silence.findMany({
    where: { startsAt: { lte: now }, endsAt: { gt: now }, expiredAt: null },
    take: 1024,
  });
  return rows.map((row) => ({
    id: row.id,
    matchers: row.matchers,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    createdBy: row.createdBy,
    comment: row.comment,
  }));
}

/**
 * Every change wakes all notification groups: a new silence mutes alerts from their next evaluation on, an ended one
 * lets muted alerts notify again. Call in the change's own transaction.
 */
export async function wakeAllNotificationGroups(tx: Prisma.TransactionClient): Promise<void> {
  await tx.notificationGroup.updateMany({ data: { nextActionAt: new Date() } });
}

export async function insertSilence(
  tx: Prisma.TransactionClient,
  input: SilenceInput,
  createdBy: string,
): Promise<SilenceRow> {
  return tx.silence.create({ data: { ...input, createdBy } });
}

/** The silence as it is, its row locked until the transaction ends (so an edit's "before" is exact). */
export async function lockSilence(tx: Prisma.TransactionClient, id: string): Promise<SilenceRow | null> {
  const locked = await tx.$queryRaw<
    { id: string }[]
  >`select id::text from silences where id = ${id}::uuid for update`;
  return locked.length === 0 ? null : tx.silence.findUnique({ where: { id } });
}

export async function updateSilence(
  tx: Prisma.TransactionClient,
  id: string,
  input: SilenceInput,
): Promise<SilenceRow> {
  return tx.silence.update({ where: { id }, data: input });
}

/** Ends a silence now (kept for the history). */
export async function expireSilence(
  tx: Prisma.TransactionClient,
  id: string,
  now: Date,
): Promise<SilenceRow> {
  return tx.silence.update({ where: { id }, data: { expiredAt: now, endsAt: now } });
}
