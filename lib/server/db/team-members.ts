import type { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

type Db = Prisma.TransactionClient | ReturnType<typeof getPrisma>;

/** One user by id, locked against a concurrent disable or role change until the assignment commits. */
export async function lockTeamMember(db: Db, id: string) {
  const [row] = await db.$queryRaw<
    { id: string; username: string; display_name: string | null; role: string; disabled_at: Date | null }[]
  >`select id::text, username, display_name, role, disabled_at from users where id = ${id}::uuid for share`;
  return row
    ? {
        id: row.id,
        username: row.username,
        displayName: row.display_name,
        role: row.role,
        disabled: !!row.disabled_at,
      }
    : null;
}

/** The demo seed's on-call responder: a real user (no password, so nobody signs in as them) for the audit trail. */
export async function upsertPasswordlessResponder(username: string) {
  return getPrisma().user.upsert({
    where: { username },
    create: { username, role: "responder", displayName: "Demo on-call" },
    update: {},
    select: { id: true, username: true },
  });
}

/** Sets (or, with null, clears) a user's own notification target; returns the one it replaced. */
export async function replaceNotificationTarget(db: Db, userId: string, target: object | null) {
  const [row] = await db.$queryRaw<{ previous: unknown }[]>`
    update users u set notification_target = ${target === null ? null : JSON.stringify(target)}::jsonb,
      updated_at = now()
    from (select id, notification_target as previous from users where id = ${userId}::uuid for update) old
    where u.id = old.id
    returning old.previous`;
  return row?.previous ?? null;
}

export async function readNotificationTarget(userId: string): Promise<unknown> {
  const row = await getPrisma().user.findUnique({
    where: { id: userId },
    select: { notificationTarget: true },
  });
  return row?.notificationTarget ?? null;
}
