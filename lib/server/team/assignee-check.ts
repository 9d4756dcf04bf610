import { roleAtLeast, type Role } from "@/lib/auth/roles";
import type { AssigneeView } from "@/lib/dashboard/api-types";
import type { Prisma } from "@/lib/generated/prisma/client";
import { lockTeamMember } from "../db/team-members";
import { ApiError } from "../http/api-error";
import type { Caller } from "../http/authenticate";

const refuse = (path: string, message: string) =>
  new ApiError(422, "invalid_assignee", message, [{ path, code: "invalid_assignee", message }]);

/**
 * The user an item or alert may be assigned to: one who exists, is not disabled, and can act on it (a responder
 * or an admin: a viewer could not acknowledge or resolve what they own). Locked until the caller's transaction ends.
 */
export async function checkAssignee(
  tx: Prisma.TransactionClient,
  assigneeId: string,
  path = "$.assigneeId",
): Promise<AssigneeView> {
  const user = await lockTeamMember(tx, assigneeId);
  if (!user) throw refuse(path, "no user has this id");
  if (user.disabled) throw refuse(path, `${user.username} is disabled`);
  if (!roleAtLeast(user.role as Role, "responder"))
    throw refuse(path, `${user.username} is a viewer: only responders and admins can be assigned`);
  return { id: user.id, username: user.username, displayName: user.displayName };
}

/** `assignee=me` is the signed-in user; a key is nobody, so it must name a user's id. */
export function assigneeFilterId(filter: string | undefined, caller: Caller): string | undefined {
  if (filter !== "me") return filter;
  if (caller.kind !== "user") {
    throw new ApiError(422, "invalid_query", "an ingestion key is nobody: pass a user's id, not 'me'", [
      { path: "$.query.assignee", code: "not_a_user", message: "'me' needs a signed-in user" },
    ]);
  }
  return caller.userId;
}
