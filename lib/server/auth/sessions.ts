import { createHash, randomBytes, randomUUID } from "node:crypto";
import { clientAddress } from "@/lib/auth/client-address";
import {
  countActiveAdmins,
  createFirstAdmin,
  deleteUserSession,
  findLiveSession,
  findUserByName,
  insertUserSession,
  type NewSession,
  touchUserSession,
  upsertUser,
} from "../db/users";
import { dummyPasswordHash, hashPassword, verifyPassword } from "./password";
import { signInThrottleSettings } from "./throttle-settings";

export const SESSION_COOKIE = "receipt_session";
const SESSION_DAYS = 7;
const LAST_SEEN_PRECISION_MS = 60_000;

export type SessionUser = { id: string; username: string; role: string; sessionId: string };

/** A random token's SHA-256: sessions and invitations keep only this, never the token. */
export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

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

/**
 * Starts a session for a user who has proved who they are; returns the cookie's token (the table keeps only its
 * hash, with how and from where the session began, for the owner's sessions list).
 */
export async function startSession(
  user: { id: string; username: string; role: string },
  method: NewSession["method"],
  request: Request,
): Promise<{ token: string; user: SessionUser }> {
  const token = randomBytes(32).toString("base64url");
  const address = clientAddress(
    request.headers.get("x-forwarded-for"),
    signInThrottleSettings().trustedProxies,
  );
  const sessionId = randomUUID();
  await insertUserSession({
    id: sessionId,
    tokenHash: hashToken(token),
    userId: user.id,
    expiresAt: new Date(Date.now() + SESSION_DAYS * 86400_000),
    method,
    userAgent: request.headers.get("user-agent")?.slice(0, 256) ?? null,
    address,
  });
  return { token, user: { id: user.id, username: user.username, role: user.role, sessionId } };
}

/** Checks a username and password; on success starts a session. A disabled or password-less user cannot. */
export async function signIn(
  username: string,
  password: string,
  request: Request,
): Promise<{ token: string; user: SessionUser } | null> {
  const user = await findUserByName(username);
  // Verify against a dummy hash when the user does not exist, so timing does not reveal which usernames exist.
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !ok || user.disabledAt) return null;
  return startSession(user, "password", request);
}

export async function signOut(token: string): Promise<void> {
  await deleteUserSession(hashToken(token));
}

export async function userForToken(token: string | null): Promise<SessionUser | null> {
  if (!token) return null;
  const session = await findLiveSession(hashToken(token));
  // The sessions list shows when each was last used; a minute's precision is enough and keeps reads write-free.
  if (session && Date.now() - session.lastSeenAt.getTime() > LAST_SEEN_PRECISION_MS)
    await touchUserSession(session.id);
  return session ? { ...session.user, sessionId: session.id } : null;
}

/** RECEIPT_ADMIN_PASSWORD, when set, is the admin's password (applied at every start). */
export async function ensureAdminFromEnv(username: string, password: string | undefined): Promise<void> {
  if (password) await upsertUser(username, await hashPassword(password));
}

/** First-run setup is open while no admin can sign in: a fresh install, or one seeded with demo users only. */
export async function needsFirstRunSetup(): Promise<boolean> {
  return (await countActiveAdmins()) === 0;
}

export async function completeFirstRunSetup(username: string, password: string) {
  return createFirstAdmin(username, await hashPassword(password));
}
