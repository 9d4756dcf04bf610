import type { UserTx } from "./users";
import { getPrisma } from "./client";

export type NewInvite = { tokenHash: string; role: string; createdBy: string; expiresAt: Date };

export async function insertInvite(tx: UserTx, invite: NewInvite) {
  return tx.userInvite.create({ data: invite, omit: { tokenHash: true } });
}

/** Every invitation, newest first (never the token hash). */
export async function listInvites() {
  return getPrisma().userInvite.findMany({ orderBy: { createdAt: "desc" }, omit: { tokenHash: true } });
}

export async function findInviteByTokenHash(tokenHash: string) {
  return getPrisma().userInvite.findUnique({ where: { tokenHash }, omit: { tokenHash: true } });
}

/** Revokes a pending invitation; null when there is none with that id that is still pending. */
export async function revokePendingInvite(tx: UserTx, id: string, now = new Date()) {
  const { count } = await tx.userInvite.updateMany({
    where: { id, usedAt: null, revokedAt: null, expiresAt: { gt: now } },
    data: { revokedAt: now },
  });
  return count > 0 ? tx.userInvite.findUnique({ where: { id }, omit: { tokenHash: true } }) : null;
}

/**
 * Marks a pending invitation used, in the accepting transaction: the row lock makes a second, concurrent accept of
 * the same link wait, then find it used. Null when the invitation is not pending (any more).
 */
export async function claimPendingInvite(tx: UserTx, tokenHash: string, now = new Date()) {
  const { count } = await tx.userInvite.updateMany({
    where: { tokenHash, usedAt: null, revokedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  return count > 0 ? tx.userInvite.findUnique({ where: { tokenHash }, omit: { tokenHash: true } }) : null;
}

export async function recordInviteUser(tx: UserTx, id: string, userId: string) {
  await tx.userInvite.update({ where: { id }, data: { usedByUserId: userId } });
}
