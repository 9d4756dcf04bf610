import { z } from "zod";
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from "@/lib/audit/audit-actions";
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX } from "@/lib/audit/audit-view";
import { ZQueryTimestamp } from "../reading/chain-query";

/** GET /api/v1/audit's query: every filter optional; `action` may repeat (any of them). */
export const ZAuditQuery = z
  .strictObject({
    actor: z.string().trim().min(1).max(200).optional(),
    action: z.array(z.enum(AUDIT_ACTIONS)).max(AUDIT_ACTIONS.length).optional(),
    targetType: z.enum(AUDIT_TARGET_TYPES).optional(),
    targetId: z.string().trim().min(1).max(256).optional(),
    since: ZQueryTimestamp.optional(),
    until: ZQueryTimestamp.optional(),
    before: z
      .string()
      .regex(/^\d{1,18}$/, "an event id from a previous page's nextCursor")
      .optional(),
    limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT),
  })
  .superRefine((query, ctx) => {
    if (query.since && query.until && Date.parse(query.until) <= Date.parse(query.since))
      ctx.addIssue({
        code: "custom",
        path: ["until"],
        message: "must be after since",
        params: { code: "invalid_range" },
      });
  });

export type AuditQuery = z.infer<typeof ZAuditQuery>;

/** Query parameters that may repeat. */
export const AUDIT_REPEATABLE = ["action"];
