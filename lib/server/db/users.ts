import { getPrisma } from "./client";

export async function countUsers(): Promise<number> {
  return getPrisma().user.count();
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

/** Creates the first user only while there is none: two racing first-run setups cannot both win. */
export async function createFirstUser(username: string, passwordHash: string): Promise<boolean> {
  return getPrisma().$transaction(async (tx) => {
    await tx.$queryRaw`select count(pg_advisory_xact_lock(42))::int as locked`;
    if ((await tx.user.count()) > 0) return false;
    await tx.user.create({ data: { username, passwordHash, role: "admin" } });
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
      user: { select: { id: true, username: true, role: true } },
    },
  });
}

export async function deleteUserSession(tokenHash: string) {
  await getPrisma().userSession.deleteMany({ where: { tokenHash } });
}
