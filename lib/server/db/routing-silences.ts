import type { Prisma } from "@/lib/generated/prisma/client";
import type { TSilence } from "@/lib/routing/config";
import { getPrisma } from "./client";
import { poolSql, prepared, type Sql } from "./sql";

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

// Read by every group flush: prepared, as the routing version is (routing-config.ts), not through Prisma.
const ACTIVE_SILENCES = prepared(
  "receipt_active_silences",
  `select id::text as id, matchers, starts_at as "startsAt", ends_at as "endsAt", created_by as "createdBy", comment
    from silences where starts_at <= $1 and ends_at > $1 and expired_at is null limit 1024`,
);

/** Silences in force at `now`, in the routing domain's shape. */
export async function activeSilences(now: Date, sql: Sql = poolSql()): Promise<TSilence[]> {
  const rows = await sql.query<
    Pick<SilenceRow, "id" | "matchers" | "startsAt" | "endsAt" | "createdBy" | "comment">
  >(ACTIVE_SILENCES, [now]);
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
