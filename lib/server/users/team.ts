import type { z } from "zod";
import type { Role } from "@/lib/auth/roles";
import type { ZTeamQuery, ZUpdateUserBody } from "@/lib/auth/user-input";
import type { TeamMember } from "@/lib/dashboard/team-types";
import { appendAuditEvent } from "../db/audit-events";
import {
  countEnabledAdmins,
  deleteSessionsOfUser,
  findUserForUpdate,
  inTransaction,
  listTeamMembers,
  lockAdminChanges,
  type TeamMemberRow,
  updateUserAccount,
} from "../db/users";
import { ApiError, notFound } from "../http/api-error";
import type { Caller } from "../http/authenticate";

type UserCaller = Extract<Caller, { kind: "user" }>;

export function toTeamMember(row: TeamMemberRow): TeamMember {
  return {
    id: row.id,
    username: row.username,
    displayName: row.displayName,
    role: row.role as Role,
    disabled: row.disabledAt !== null,
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
  };
}

export async function listTeam(query: z.infer<typeof ZTeamQuery>): Promise<TeamMember[]> {
  const rows = await listTeamMembers({ role: query.role, includeDisabled: query.include === "disabled" });
  return rows.map(toTeamMember);
}

/**
 * An admin changes a user's role, enabled state or display name. Under the admins lock: the change may not leave
 * the team without an enabled admin, even when two admins demote each other at the same moment. Disabling ends the
 * user's sessions in the same transaction. Each change is audited with its before and after.
 */
export async function updateTeamMember(
  caller: UserCaller,
  id: string,
  change: z.infer<typeof ZUpdateUserBody>,
): Promise<{ user: TeamMember; sessionsEnded: number }> {
  if (change.disabled === true && id === caller.userId) {
    throw new ApiError(409, "cannot_disable_self", "you cannot disable your own account", [
      { path: "$.disabled", code: "cannot_disable_self", message: "ask another admin to do it" },
    ]);
  }
  const sessionsEnded = await inTransaction(async (tx) => {
    await lockAdminChanges(tx);
    const before = await findUserForUpdate(tx, id);
    if (!before) throw notFound("user");
    const role = change.role ?? before.role;
    const disabledAt =
      change.disabled === undefined
        ? before.disabledAt
        : change.disabled
          ? (before.disabledAt ?? new Date())
          : null;
    const wasEnabledAdmin = before.role === "admin" && before.disabledAt === null;
    const staysEnabledAdmin = role === "admin" && disabledAt === null;
    if (wasEnabledAdmin && !staysEnabledAdmin && (await countEnabledAdmins(tx)) <= 1) {
      throw new ApiError(409, "last_admin", "this would leave no enabled admin", [
        {
          path: change.role !== undefined && change.role !== "admin" ? "$.role" : "$.disabled",
          code: "last_admin",
          message: "make another user an admin first",
        },
      ]);
    }
    const after = await updateUserAccount(tx, id, {
      role,
      disabledAt,
      ...(change.displayName !== undefined ? { displayName: change.displayName } : {}),
    });
    const audit = {
      actorUserId: caller.userId,
      actor: caller.username,
      targetType: "user" as const,
      targetId: id,
    };
    if (role !== before.role)
      await appendAuditEvent(tx, {
        ...audit,
        action: "user.role_change",
        before: { username: before.username, role: before.role },
        after: { username: after.username, role },
      });
    let ended = 0;
    if (before.disabledAt === null && disabledAt !== null) {
      ended = await deleteSessionsOfUser(tx, id, null);
      await appendAuditEvent(tx, {
        ...audit,
        action: "user.disable",
        before: { username: before.username, disabled: false },
        after: { username: after.username, disabled: true, sessionsEnded: ended },
      });
    }
    if (before.disabledAt !== null && disabledAt === null)
      await appendAuditEvent(tx, {
        ...audit,
        action: "user.enable",
        before: { username: before.username, disabled: true },
        after: { username: after.username, disabled: false },
      });
    if (change.displayName !== undefined && change.displayName !== before.displayName)
      await appendAuditEvent(tx, {
        ...audit,
        action: "user.profile_change",
        before: { username: before.username, displayName: before.displayName },
        after: { username: after.username, displayName: after.displayName },
      });
    return ended;
  });
  const [row] = await listTeamMembers({ includeDisabled: true, id });
  if (!row) throw notFound("user");
  return { user: toTeamMember(row), sessionsEnded };
}
