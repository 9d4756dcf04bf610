import type { Prisma } from "@/lib/generated/prisma/client";
import type { AuditAction, AuditTargetType } from "@/lib/audit/audit-actions";
import type { getPrisma } from "./client";
import { poolSql, type Sql } from "./sql";

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

/** The same insert on a `pg` transaction (services that write through `inTransaction`, not Prisma). */
export async function appendAuditEventSql(sql: Sql, entry: AuditEntry): Promise<void> {
  await sql.execute(
    `insert into audit_events (actor_user_id, actor, action, target_type, target_id, before, after)
      values ($1::uuid, $2, $3, $4, $5, $6::jsonb, $7::jsonb)`,
    [
      entry.actorUserId,
      entry.actor,
      entry.action,
      entry.targetType,
      entry.targetId,
      jsonText(entry.before),
      jsonText(entry.after),
    ],
  );
}

const jsonText = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

export type AuditEventRow = {
  id: bigint;
  at: Date;
  actorUserId: string | null;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
};

export type AuditEventFilter = {
  actor?: string;
  actions?: readonly string[];
  targetType?: string;
  targetId?: string;
  since?: Date;
  until?: Date;
  /** Keyset cursor: only events after this one in (at desc, id desc) order. */
  before?: { at: Date; id: bigint };
  limit: number;
};

/**
 * One page of events, newest first, ordered by (at, id) so that it reads through the (at desc, id desc) index or,
 * with a filter, the (actor | action | target, at) one. The cursor compares the pair: a row inserted while someone
 * pages never shifts the pages already read. Built with only the conditions asked for, so each plan fits its filter.
 */
export function auditEventsPageQuery(filter: AuditEventFilter): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where: string[] = [];
  const param = (value: unknown, cast: string) => {
    values.push(value);
    return `$${values.length}::${cast}`;
  };
  if (filter.actor !== undefined) where.push(`actor = ${param(filter.actor, "text")}`);
  if (filter.actions?.length) where.push(`action = any(${param(filter.actions, "text[]")})`);
  if (filter.targetType !== undefined) where.push(`target_type = ${param(filter.targetType, "text")}`);
  if (filter.targetId !== undefined) where.push(`target_id = ${param(filter.targetId, "text")}`);
  if (filter.since) where.push(`at >= ${param(filter.since, "timestamptz")}`);
  if (filter.until) where.push(`at < ${param(filter.until, "timestamptz")}`);
  if (filter.before) {
    const at = param(filter.before.at, "timestamptz");
    where.push(`(at, id) < (${at}, ${param(filter.before.id.toString(), "bigint")})`);
  }
  const text = `select id, at, actor_user_id as "actorUserId", actor, action, target_type as "targetType",
      target_id as "targetId", before, after
    from audit_events
    ${where.length ? `where ${where.join(" and ")}` : ""}
    order by at desc, id desc
    limit ${param(filter.limit, "int")}`;
  return { text, values };
}

export async function listAuditEvents(filter: AuditEventFilter): Promise<AuditEventRow[]> {
  const { text, values } = auditEventsPageQuery(filter);
  return poolSql().query<AuditEventRow>(text, values);
}

/** The position of a cursor event; null when no event has that id. */
export async function findAuditEventPosition(id: bigint): Promise<{ at: Date; id: bigint } | null> {
  const [row] = await poolSql().query<{ at: Date; id: bigint }>(
    "select at, id from audit_events where id = $1::bigint",
    [id.toString()],
  );
  return row ?? null;
}
