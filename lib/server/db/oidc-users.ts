import type { Prisma } from "@/lib/generated/prisma/client";
import type { getPrisma } from "./client";

type Db = Prisma.TransactionClient | ReturnType<typeof getPrisma>;

const USER_FIELDS = { id: true, username: true, role: true, disabledAt: true } as const;

/** The user who signs in with this provider's `sub`, if any. */
export async function findUserByOidcIdentity(db: Db, issuer: string, subject: string) {
  return db.user.findUnique({
    where: { oidcIssuer_oidcSubject: { oidcIssuer: issuer, oidcSubject: subject } },
    select: USER_FIELDS,
  });
}

/**
 * Serialises first sign-ins within the transaction: two browsers of one new person (or two people asking for the
 * same username) cannot both insert.
 */
export async function lockOidcUserCreation(tx: Prisma.TransactionClient): Promise<void> {
  await tx.$queryRaw`select count(pg_advisory_xact_lock(hashtext('receipt.oidc_user_create')))::int as locked`;
}

/** Usernames starting with `prefix` (Prisma escapes LIKE's wildcards): what a new name must not collide with. */
export async function findUsernamesStartingWith(db: Db, prefix: string): Promise<Set<string>> {
  const rows = await db.user.findMany({
    where: { username: { startsWith: prefix, mode: "insensitive" } },
    select: { username: true },
  });
  // Lower-cased: a name that differs only in case from one taken is taken (uniqueUsername compares so).
  return new Set(rows.map((row) => row.username.toLowerCase()));
}

export type NewOidcUser = {
  username: string;
  role: string;
  displayName: string | null;
  email: string | null;
  oidcIssuer: string;
  oidcSubject: string;
};

/** A user who signs in only through OpenID Connect: no password. */
export async function insertOidcUser(tx: Prisma.TransactionClient, user: NewOidcUser) {
  return tx.user.create({ data: { ...user, passwordHash: null }, select: USER_FIELDS });
}

/** The provider's current name and email for a user who is not disabled; the role is the admin's, never touched. */
export async function refreshOidcUserProfile(
  db: Db,
  userId: string,
  profile: { displayName: string | null; email: string | null },
): Promise<void> {
  await db.user.updateMany({
    where: { id: userId, disabledAt: null },
    data: { ...profile, updatedAt: new Date() },
  });
}
