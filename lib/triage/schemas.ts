import { z } from "zod";
import { ZCursor } from "@/lib/dashboard/cursor";
import { type QueueName, QUEUES, TRIAGE_STATUSES } from "@/lib/dashboard/api-types";

// Request schemas of the triage endpoints. Strict: an unknown field is an error with its path, not ignored.
export const ZQueueName = z.enum(QUEUES);
const ZNote = z.string().trim().min(1, "a note cannot be empty").max(2000, "at most 2000 characters");
/** Assignees are users: free text (a name, markup) is refused here, before anything looks it up. */
export const ZAssigneeId = z.uuid({ error: "assigneeId must be a user's id (GET /api/v1/users)" });
/** `me` (the signed-in user) or a user's id, in the `assignee` query parameter of the queues and the alerts. */
export const ZAssigneeFilter = z.union([z.literal("me"), ZAssigneeId], {
  error: "assignee must be 'me' or a user's id",
});

/** The discriminator's own message for a wrong value; a plain one when the body is not an object at all. */
const unionError = (message: string) => (issue: { code: string }) =>
  issue.code === "invalid_union" ? message : "expected a JSON object";

export const ZTriageActionBody = z.discriminatedUnion(
  "action",
  [
    z.strictObject({ action: z.literal("acknowledge"), queue: ZQueueName, note: ZNote.optional() }),
    z.strictObject({
      action: z.literal("assign"),
      queue: ZQueueName,
      assigneeId: ZAssigneeId,
      note: ZNote.optional(),
    }),
    z.strictObject({ action: z.literal("unassign"), queue: ZQueueName, note: ZNote.optional() }),
    z.strictObject({ action: z.literal("note"), queue: ZQueueName, note: ZNote }),
    z.strictObject({
      action: z.literal("resolve"),
      queue: ZQueueName,
      note: ZNote.optional(),
      /** The chain's firing alerts of the queue's state resolve with the item unless false (one lifecycle). */
      cascade: z.boolean({ error: "cascade must be true or false" }).optional(),
    }),
    z.strictObject({ action: z.literal("reopen"), queue: ZQueueName, note: ZNote.optional() }),
  ],
  { error: unionError("action must be one of acknowledge, assign, unassign, note, resolve, reopen") },
);

export type TriageActionBody = z.infer<typeof ZTriageActionBody>;

export const ZReconcileBody = z.discriminatedUnion(
  "status",
  [
    z.strictObject({
      status: z.literal("committed"),
      receipt: z
        .string()
        .trim()
        .min(1, "a committed write needs its receipt")
        .max(256, "at most 256 characters"),
      note: ZNote.optional(),
    }),
    z.strictObject({ status: z.literal("absent"), note: ZNote.optional() }),
  ],
  { error: unionError("status must be 'committed' (with a receipt) or 'absent'") },
);

export type ReconcileBody = z.infer<typeof ZReconcileBody>;

/** Queues appear in URLs with a hyphen (`/queues/false-success`) and in data with an underscore. */
export const ZQueueSlug = z
  .enum(["false-success", "effect-unknown"], { error: "unknown queue: false-success or effect-unknown" })
  .transform((slug): QueueName => (slug === "false-success" ? "false_success" : "effect_unknown"));

export const ZQueueListQuery = z
  .object({
    status: z.enum([...TRIAGE_STATUSES, "all"]).default("open"),
    order: z.enum(["desc", "asc"]).default("desc"),
    cursor: ZCursor.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    assignee: ZAssigneeFilter.optional(),
  })
  .strict();
