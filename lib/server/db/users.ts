import { getPrisma } from "./client";
import type { Sql } from "./sql";

/** Admins who can sign in (not disabled): while there is none, first-run setup stays open. */
export async function countActiveAdmins(): Promise<number> {
  return getPrisma().user.count({ where: { role: "admin", disabledAt: null } });
}

export async function findUserByName(username: string) {
  return getPrisma().user.findUnique({ where: { username } });
}

/** The admin of RECEIPT_ADMIN_PASSWORD: created as an admin, or given that password (its role stays as set). */
export async function upsertUser(username: string, passwordHash: string, role = "admin") {
  return getPrisma().user.upsert({
    where: { username },
    create: { username, passwordHash, role },
    update: { passwordHash },
  });
}

/**
 * Creates the first admin only while no active admin exists (a seeded demo user or an invited viewer does not close
 * setup): two racing setups cannot both win. A username another user has is not taken over.
 */
export async function createFirstAdmin(
  username: string,
  passwordHash: string,
): Promise<"created" | "admin_exists" | "username_taken"> {
  return getPrisma().$transaction(async (tx) => {
    await tx.$queryRaw`select count(pg_advisory_xact_lock(42))::int as locked`;
    if ((await tx.user.count({ where: { role: "admin", disabledAt: null } })) > 0) return "admin_exists";
    if (await tx.user.findFirst({ where: { username: { equals: username, mode: "insensitive" } } }))
      return "username_taken";
    await tx.user.create({ data: { username, passwordHash, role: "admin" } });
    return "created";
  });
}

/** A user created from the command line; false when the name is taken (compared without case). */
export async function createUserIfNameFree(
  username: string,
  passwordHash: string,
  role: string,
): Promise<boolean> {
  return getPrisma().$transaction(async (tx) => {
    await tx.$queryRaw`select count(pg_advisory_xact_lock(42))::int as locked`;
    if (await tx.user.findFirst({ where: { username: { equals: username, mode: "insensitive" } } }))
      return false;
    await tx.user.create({ data: { username, passwordHash, role } });
    return true;
  });
}

export type NewSession = {
  id: string;
  tokenHash: string;
  userId: string;
  expiresAt: Date;
  method: "password" | "oidc" | "invite" | "setup";
  userAgent: string | null;
  address: string | null;
};

export async function insertUserSession(session: NewSession) {
  await getPrisma().userSession.create({ data: session });
}

/** A session that has not expired, of a user who is not disabled, with the user's current role. */
export async function findLiveSession(tokenHash: string, now = new Date()) {
  return getPrisma().userSession.findFirst({
    where: { tokenHash, expiresAt: { gt: now }, user: { disabledAt: null } },
    select: {
      id: true,
      tokenHash: true,
      expiresAt: true,
      lastSeenAt: true,
      user: { select: { id: true, username: true, role: true } },
    },
  });
}

/**
 * Deletes up to `limit` sessions that expired before `before`, oldest first (retention: an expired session never
 * signs in again, and the owner's list shows only live ones). Returns how many went.
 */
export async function deleteExpiredSessions(sql: Sql, before: Date, limit: number): Promise<number> {
  return sql.execute(
    `delete from user_sessions where token_hash = any(array(
      select token_hash from user_sessions where expires_at < $1::timestamptz
        order by expires_at limit $2::int for update skip locked))`,
    [before.toISOString(), limit],
  );
}

export async function deleteUserSession(tokenHash: string) {
  await getPrisma().userSession.deleteMany({ where: { tokenHash } });
}

type Tx = Parameters<Parameters<ReturnType<typeof getPrisma>["$transaction"]>[0]>[0];

/** Refreshes a session's last_seen_at at most once a minute: the WHERE makes a fresh one a no-op. */
export async function touchUserSession(sessionId: string): Promise<void> {
  await getPrisma().$executeRaw`
    update user_sessions set last_seen_at = now()
    where id = ${sessionId}::uuid and last_seen_at < now() - interval '1 minute'`;
}

export type TeamMemberRow = {
  id: string;
  username: string;
  displayName: string | null;
  role: string;
  disabledAt: Date | null;
  createdAt: Date;
  lastSeenAt: Date | null;
};

/** The team, oldest first, with each user's latest session activity. */
export async function listTeamMembers(filter: { role?: string; includeDisabled: boolean; id?: string }) {
  return getPrisma().$queryRaw<TeamMemberRow[]>`
    select u.id::text as id, u.username, u.display_name as "displayName", u.role,
           u.disabled_at as "disabledAt", u.created_at as "createdAt",
           (select max(s.last_seen_at) from user_sessions s where s.user_id = u.id) as "lastSeenAt"
    from users u
    where (${filter.role ?? null}::text is null or u.role = ${filter.role ?? null}::text)
      and (${filter.includeDisabled} or u.disabled_at is null)
      and (${filter.id ?? null}::uuid is null or u.id = ${filter.id ?? null}::uuid)
    order by u.created_at, u.username`;
}

export async function findUserById(id: string) {
  return getPrisma().user.findUnique({ where: { id } });
}

/**
 * Serialises every change that could remove the last enabled admin (role changes, disabling): two concurrent
 * demotions wait for each other, so the second sees the first's result.
 */
export async function lockAdminChanges(tx: Tx): Promise<void> {
  await tx.$queryRaw`select count(pg_advisory_xact_lock(hashtext('receipt.users.admins')))::int as locked`;
}

export async function countEnabledAdmins(tx: Tx): Promise<number> {
  return tx.user.count({ where: { role: "admin", disabledAt: null } });
}

export async function findUserForUpdate(tx: Tx, id: string) {
  return tx.user.findUnique({ where: { id } });
}

export async function updateUserAccount(
  tx: Tx,
  id: string,
  change: { role?: string; disabledAt?: Date | null; displayName?: string | null },
) {
  return tx.user.update({ where: { id }, data: { ...change, updatedAt: new Date() } });
}

export async function updateUserPasswordHash(tx: Tx, id: string, passwordHash: string) {
  await tx.user.update({ where: { id }, data: { passwordHash, updatedAt: new Date() } });
}

/** Ends every session of a user but `keepSessionId` (none kept when it is null); returns how many ended. */
export async function deleteSessionsOfUser(tx: Tx, userId: string, keepSessionId: string | null) {
  const { count } = await tx.userSession.deleteMany({
    where: { userId, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) },
  });
  return count;
}

/** One of the user's own sessions, deleted; false when no session of theirs has that id. */
export async function deleteOwnSession(tx: Tx, userId: string, sessionId: string): Promise<boolean> {
  const { count } = await tx.userSession.deleteMany({ where: { id: sessionId, userId } });
  return count > 0;
}

/** The user's live sessions, most recently active first (never the token hash). */
export async function listSessionsOfUser(userId: string, now = new Date()) {
  return getPrisma().userSession.findMany({
    where: { userId, expiresAt: { gt: now } },
    orderBy: [{ lastSeenAt: "desc" }, { createdAt: "desc" }],
    select: {
      id: true,
      createdAt: true,
      lastSeenAt: true,
      method: true,
      userAgent: true,
      address: true,
    },
  });
}

/** Thrown by `insertInvitedUser` when the username is already someone's. */
export class UsernameTakenError extends Error {}

export async function insertInvitedUser(
  tx: Tx,
  user: { username: string; passwordHash: string; role: string; displayName: string | null },
) {
  // Names that differ only in case are one name: "Alice" cannot join beside "alice".
  if (await tx.user.findFirst({ where: { username: { equals: user.username, mode: "insensitive" } } }))
    throw new UsernameTakenError(user.username);
  try {
    return await tx.user.create({ data: user });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw new UsernameTakenError(user.username);
    throw error;
  }
}

export function inTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  return getPrisma().$transaction(work);
}

export type { Tx as UserTx };
