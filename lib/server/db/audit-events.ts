import type { Prisma } from "@/lib/generated/prisma/client";
import type { AuditAction, AuditTargetType } from "@/lib/audit/audit-actions";
import type { getPrisma } from "./client";

type Db = Prisma.TransactionClient | ReturnType<typeof getPrisma>;

export type AuditEntry = {
  /** The signed-in user who acted; null for a key or the system. */
  actorUserId: string | null;
  /** The user's name, `key:<name>`, or `system`. */
  actor: string;
  action: AuditAction;
  targetType: AuditTargetType;
  targetId: string;
  before?: unknown;
  after?: unknown;
};

const json = (value: unknown) =>
  value === undefined || value === null ? undefined : (value as Prisma.InputJsonValue);

/** Appends one audit event; pass the action's own transaction so the event and the change commit together. */
export async function appendAuditEvent(db: Db, entry: AuditEntry): Promise<void> {
  await db.auditEvent.create({
    data: {
      actorUserId: entry.actorUserId,
      actor: entry.actor,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      before: json(entry.before),
      after: json(entry.after),
    },
  });
}
