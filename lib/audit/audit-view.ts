import type { AuditAction, AuditTargetType } from "./audit-actions";

/** One audit event as the API answers it (GET /api/v1/audit). */
export type AuditEventView = {
  /** Also the paging cursor: `?before=<id>` continues after this event. */
  id: string;
  at: string;
  actor: string;
  actorUserId: string | null;
  action: AuditAction;
  targetType: AuditTargetType;
  targetId: string;
  before: unknown;
  after: unknown;
};

export type AuditPage = { events: AuditEventView[]; nextCursor: string | null };

export const AUDIT_PAGE_MAX = 200;
export const AUDIT_PAGE_DEFAULT = 50;

/** One changed (or kept) top-level field of an event's before → after. */
export type AuditFieldChange = { field: string; before: unknown; after: unknown; changed: boolean };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const fieldsOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : value === undefined || value === null
      ? {}
      : { value };

/**
 * The fields of before and after side by side, in first-seen order, each marked changed or not: the UI highlights
 * the changed ones. A missing side reads as undefined (created, or deleted).
 */
export function auditFieldChanges(before: unknown, after: unknown): AuditFieldChange[] {
  const b = fieldsOf(before);
  const a = fieldsOf(after);
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return fields.map((field) => ({
    field,
    before: b[field],
    after: a[field],
    changed: !same(b[field], a[field]),
  }));
}
