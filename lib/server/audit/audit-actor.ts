import type { AuditEntry } from "../db/audit-events";
import type { Caller } from "../http/authenticate";

/** Who an audit event names: a signed-in user (id and name), a key (`key:<name>`), or `system` (a CLI or job). */
export type AuditActor = Pick<AuditEntry, "actorUserId" | "actor">;

/** Command-line tools run by whoever holds the database: no user to name. */
export const SYSTEM_ACTOR: AuditActor = { actorUserId: null, actor: "system" };

export function auditActor(caller: Caller): AuditActor {
  return caller.kind === "user"
    ? { actorUserId: caller.userId, actor: caller.username }
    : { actorUserId: null, actor: `key:${caller.keyName}` };
}
