import { createHash, randomBytes } from "node:crypto";
import {
  countUsers,
  createFirstUser,
  deleteUserSession,
  findLiveSession,
  findUserByName,
  insertUserSession,
  upsertUser,
} from "../db/users";
import { dummyPasswordHash, hashPassword, verifyPassword } from "./password";

export const SESSION_COOKIE = "receipt_session";
const SESSION_DAYS = 7;

export type SessionUser = { id: string; username: string; role: string };

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** The Set-Cookie value for a new session: HttpOnly, SameSite=Lax, Secure when served over HTTPS. */
export function sessionCookie(token: string, secure: boolean, maxAgeSeconds = SESSION_DAYS * 86400): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}

export function readSessionToken(cookieHeader: string | null): string | null {
  for (const part of cookieHeader?.split(";") ?? []) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=") || null;
  }
  return null;
}

/** Checks a username and password; on success returns a new session token (the table keeps only its hash). */
export async function signIn(
  username: string,
  password: string,
): Promise<{ token: string; user: SessionUser } | null> {
  const user = await findUserByName(username);
  // Verify against a dummy hash when the user does not exist, so timing does not reveal which usernames exist.
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !ok) return null;
  const token = randomBytes(32).toString("base64url");
  await insertUserSession(hashToken(token), user.id, new Date(Date.now() + SESSION_DAYS * 86400_000));
  return { token, user: { id: user.id, username: user.username, role: user.role } };
}

export async function signOut(token: string): Promise<void> {
  await deleteUserSession(hashToken(token));
}

export async function userForToken(token: string | null): Promise<SessionUser | null> {
  if (!token) return null;
  const session = await findLiveSession(hashToken(token));
  return session?.user ?? null;
}

/** RECEIPT_ADMIN_PASSWORD, when set, is the admin's password (applied at every start). */
export async function ensureAdminFromEnv(username: string, password: string | undefined): Promise<void> {
  if (password) await upsertUser(username, await hashPassword(password));
}

export async function needsFirstRunSetup(): Promise<boolean> {
  return (await countUsers()) === 0;
}

export async function completeFirstRunSetup(username: string, password: string): Promise<boolean> {
  return createFirstUser(username, await hashPassword(password));
}
