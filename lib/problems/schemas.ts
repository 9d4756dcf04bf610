import { z } from "zod";
import { ZAssigneeId } from "@/lib/triage/schemas";
import { MAX_BULK_PROBLEMS } from "./lifecycle";

// Request schemas of the problems' writes. Strict: an unknown field is an error with its path, not ignored.

const KEY = /^[0-9a-f]{32}$/;
const ZProblemKey = z
  .string()
  .regex(KEY, { error: "a problem key is 32 hexadecimal digits (GET /api/v1/problems)" });
const ZCascade = z.boolean({ error: "cascade must be true or false" }).default(false);

/** `POST /api/v1/problems/{key}/resolve`: the body is optional; `cascade` also resolves what hangs below. */
export const ZProblemResolveBody = z.strictObject({ cascade: ZCascade });

const ZKeys = z
  .array(ZProblemKey, { error: "keys must be a list of problem keys" })
  .min(1, "name at least one problem")
  .max(MAX_BULK_PROBLEMS, `at most ${MAX_BULK_PROBLEMS} problems at once`)
  .superRefine((keys, context) => {
    keys.forEach((key, index) => {
      if (keys.indexOf(key) !== index)
        context.addIssue({ code: "custom", path: [index], message: "this problem is named twice" });
    });
  });

/** `POST /api/v1/problems/resolve`: several problems at once, with the same cascade choice. */
export const ZBulkResolveBody = z.strictObject({ keys: ZKeys, cascade: ZCascade });

/** `GET /api/v1/problems/below?key=…&key=…`: what a cascade would also resolve. */
export const ZProblemsBelowQuery = z.strictObject({
  key: z.preprocess((value) => (typeof value === "string" ? [value] : value), ZKeys),
});

export const ZProblemAssigneeBody = z.discriminatedUnion(
  "action",
  [
    z.strictObject({ action: z.literal("assign"), assigneeId: ZAssigneeId }),
    z.strictObject({ action: z.literal("unassign") }),
  ],
  {
    error: (issue) =>
      issue.code === "invalid_union" ? "action must be assign or unassign" : "expected a JSON object",
  },
);
export type ProblemAssigneeBody = z.infer<typeof ZProblemAssigneeBody>;
