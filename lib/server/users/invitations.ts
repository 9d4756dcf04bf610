import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { Role } from "@/lib/auth/roles";
import type { ZAcceptInviteBody, ZCreateInviteBody } from "@/lib/auth/user-input";
import type { CreatedInvite, InviteLookup, InviteStatus, InviteView } from "@/lib/dashboard/team-types";
import { appendAuditEvent } from "../db/audit-events";
import {
  claimPendingInvite,
  findInviteByTokenHash,
  insertInvite,
  listInvites,
  recordInviteUser,
  revokePendingInvite,
} from "../db/user-invites";
import { inTransaction, insertInvitedUser, UsernameTakenError } from "../db/users";
import { hashPassword } from "../auth/password";
import { hashToken, type SessionUser, startSession } from "../auth/sessions";
import { ApiError, notFound } from "../http/api-error";
import type { Caller } from "../http/authenticate";

type UserCaller = Extract<Caller, { kind: "user" }>;
type InviteRow = NonNullable<Awaited<ReturnType<typeof findInviteByTokenHash>>>;

/** The tokens this server issues: 32 random bytes, base64url. Anything else cannot be one. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function inviteStatus(invite: InviteRow, now = new Date()): InviteStatus {
  if (invite.usedAt) return "used";
  if (invite.revokedAt) return "revoked";
  return invite.expiresAt <= now ? "expired" : "pending";
}

function toInviteView(invite: InviteRow, now = new Date()): InviteView {
  return {
    id: invite.id,
    role: invite.role as Role,
    status: inviteStatus(invite, now),
    createdBy: invite.createdBy,
    createdAt: invite.createdAt.toISOString(),
    expiresAt: invite.expiresAt.toISOString(),
    usedAt: invite.usedAt?.toISOString() ?? null,
    revokedAt: invite.revokedAt?.toISOString() ?? null,
  };
}

/** Creates a one-time invitation; its token is in the returned link only (the table keeps its hash). */
export async function createInvitation(
  caller: UserCaller,
  body: z.infer<typeof ZCreateInviteBody>,
): Promise<CreatedInvite> {
  const token = randomBytes(32).toString("base64url");
  const invite = await inTransaction(async (tx) => {
    const created = await insertInvite(tx, {
      tokenHash: hashToken(token),
      role: body.role,
      createdBy: caller.username,
      expiresAt: new Date(Date.now() + body.expiresInHours * 3600_000),
    });
    await appendAuditEvent(tx, {
      actorUserId: caller.userId,
      actor: caller.username,
      action: "user.invite",
      targetType: "invite",
      targetId: created.id,
      after: { role: created.role, expiresAt: created.expiresAt.toISOString() },
    });
    return created;
  });
  return { invite: toInviteView(invite), link: `/join?token=${token}` };
}

export async function listInvitations(): Promise<InviteView[]> {
  const now = new Date();
  return (await listInvites()).map((invite) => toInviteView(invite, now));
}

export async function revokeInvitation(caller: UserCaller, id: string): Promise<InviteView> {
  return inTransaction(async (tx) => {
    const revoked = await revokePendingInvite(tx, id);
    if (!revoked) throw notFound("pending invitation");
    await appendAuditEvent(tx, {
      actorUserId: caller.userId,
      actor: caller.username,
      action: "user.invite_revoke",
      targetType: "invite",
      targetId: id,
      before: { role: revoked.role, status: "pending" },
      after: { role: revoked.role, status: "revoked" },
    });
    return toInviteView(revoked);
  });
}

const GONE: Record<Exclude<InviteStatus, "pending">, string> = {
  used: "this invitation has already been used",
  expired: "this invitation has expired; ask an admin for a new one",
  revoked: "this invitation was revoked; ask an admin for a new one",
};

/**
 * The invitation of a token, pending; else 404 `invite_not_found` or 410 `invite_used|expired|revoked`. Accepting a
 * used link is 409 `invite_used`: the link was consumed by someone, as in a race for it.
 */
async function pendingInvite(token: string, usedStatus = 410): Promise<InviteRow> {
  const invite = TOKEN_PATTERN.test(token) ? await findInviteByTokenHash(hashToken(token)) : null;
  if (!invite) throw new ApiError(404, "invite_not_found", "no such invitation");
  const status = inviteStatus(invite);
  if (status !== "pending")
    throw new ApiError(status === "used" ? usedStatus : 410, `invite_${status}`, GONE[status]);
  return invite;
}

export async function lookupInvitation(token: string): Promise<InviteLookup> {
  const invite = await pendingInvite(token);
  return { role: invite.role as Role, expiresAt: invite.expiresAt.toISOString() };
}

/**
 * Joins the team through an invitation: creates the user with the invited role and marks the invitation used, in
 * one transaction (the same link accepted twice at once makes one user: the other gets 409 `invite_used`); then
 * starts the new user's session.
 */
export async function acceptInvitation(
  token: string,
  body: z.infer<typeof ZAcceptInviteBody>,
  request: Request,
): Promise<{ token: string; user: SessionUser }> {
  await pendingInvite(token, 409);
  const passwordHash = await hashPassword(body.password);
  const user = await inTransaction(async (tx) => {
    const invite = await claimPendingInvite(tx, hashToken(token));
    if (!invite) throw new ApiError(409, "invite_used", "this invitation was used meanwhile");
    const created = await insertInvitedUser(tx, {
      username: body.username,
      passwordHash,
      role: invite.role,
      displayName: body.displayName ?? null,
    });
    await recordInviteUser(tx, invite.id, created.id);
    await appendAuditEvent(tx, {
      actorUserId: created.id,
      actor: created.username,
      action: "user.join",
      targetType: "user",
      targetId: created.id,
      after: {
        username: created.username,
        role: created.role,
        inviteId: invite.id,
        invitedBy: invite.createdBy,
      },
    });
    return created;
  }).catch((error: unknown) => {
    if (error instanceof UsernameTakenError)
      throw new ApiError(409, "username_taken", "that username is taken", [
        { path: "$.username", code: "username_taken", message: "choose another username" },
      ]);
    throw error;
  });
  return startSession(user, "invite", request);
}
