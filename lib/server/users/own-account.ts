import type { z } from "zod";
import type { ZChangePasswordBody } from "@/lib/auth/user-input";
import type { OwnSession } from "@/lib/dashboard/team-types";
import { appendAuditEvent } from "../db/audit-events";
import {
  deleteOwnSession,
  deleteSessionsOfUser,
  findUserById,
  inTransaction,
  listSessionsOfUser,
  updateUserPasswordHash,
} from "../db/users";
import { dummyPasswordHash, hashPassword, verifyPassword } from "../auth/password";
import { beginSignInAttempt, TooManyAttempts } from "../auth/sign-in-throttle";
import { ApiError, notFound } from "../http/api-error";
import type { Caller } from "../http/authenticate";

type UserCaller = Extract<Caller, { kind: "user" }>;

const auditBy = (caller: UserCaller) => ({ actorUserId: caller.userId, actor: caller.username });

/**
 * Changes the caller's password. The current password is checked as sign-in checks it — counted by the same
 * throttle on the account, against a dummy hash when there is none — so a stolen session cannot guess it quickly.
 * The user's other sessions end; this one stays.
 */
export async function changeOwnPassword(
  caller: UserCaller,
  body: z.infer<typeof ZChangePasswordBody>,
  request: Request,
): Promise<{ otherSessionsEnded: number }> {
  const attempt = await beginSignInAttempt(caller.username, request).catch((error: unknown) => {
    if (error instanceof TooManyAttempts)
      throw new TooManyAttempts(
        error.retryAfterMs,
        error.issues.map((issue) => ({ ...issue, path: "$.currentPassword" })),
      );
    throw error;
  });
  const user = await findUserById(caller.userId);
  const ok = await verifyPassword(body.currentPassword, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user?.passwordHash || !ok) {
    attempt.failed();
    throw new ApiError(422, "wrong_password", "the current password is wrong", [
      { path: "$.currentPassword", code: "wrong_password", message: "this is not your current password" },
    ]);
  }
  await attempt.succeeded();
  if (body.newPassword === body.currentPassword) {
    throw new ApiError(422, "password_unchanged", "the new password is the current one", [
      {
        path: "$.newPassword",
        code: "password_unchanged",
        message: "choose a password other than the current one",
      },
    ]);
  }
  const passwordHash = await hashPassword(body.newPassword);
  return inTransaction(async (tx) => {
    await updateUserPasswordHash(tx, caller.userId, passwordHash);
    const otherSessionsEnded = await deleteSessionsOfUser(tx, caller.userId, caller.sessionId);
    await appendAuditEvent(tx, {
      ...auditBy(caller),
      action: "user.password_change",
      targetType: "user",
      targetId: caller.userId,
      after: { username: caller.username, otherSessionsEnded },
    });
    return { otherSessionsEnded };
  });
}

export async function listOwnSessions(caller: UserCaller): Promise<OwnSession[]> {
  return (await listSessionsOfUser(caller.userId)).map((session) => ({
    id: session.id,
    createdAt: session.createdAt.toISOString(),
    lastSeenAt: session.lastSeenAt.toISOString(),
    method: session.method,
    userAgent: session.userAgent,
    address: session.address,
    current: session.id === caller.sessionId,
  }));
}

/** Ends one of the caller's sessions; another user's session id is 404, as if it did not exist. */
export async function revokeOwnSession(caller: UserCaller, sessionId: string): Promise<void> {
  await inTransaction(async (tx) => {
    if (!(await deleteOwnSession(tx, caller.userId, sessionId))) throw notFound("session");
    await appendAuditEvent(tx, {
      ...auditBy(caller),
      action: "user.session_revoke",
      targetType: "session",
      targetId: sessionId,
      after: { username: caller.username, current: sessionId === caller.sessionId },
    });
  });
}

/** "Sign out everywhere else": ends every session of the caller but this one. */
export async function revokeOtherSessions(caller: UserCaller): Promise<{ ended: number }> {
  return inTransaction(async (tx) => {
    const ended = await deleteSessionsOfUser(tx, caller.userId, caller.sessionId);
    if (ended > 0)
      await appendAuditEvent(tx, {
        ...auditBy(caller),
        action: "user.session_revoke",
        targetType: "session",
        targetId: "others",
        after: { username: caller.username, ended },
      });
    return { ended };
  });
}

/** The `self` scope admits users only; this narrows the caller's type for the services above. */
export function userCaller(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new ApiError(403, "forbidden", "only a signed-in user may do this");
  return caller;
}
