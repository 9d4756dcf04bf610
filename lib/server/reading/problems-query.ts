import { z } from "zod";
import { STATES } from "@/lib/contract";
import { PROBLEM_SORTS, PROBLEM_STATUSES, PROBLEM_WINDOWS } from "@/lib/problems/types";
import { DEFAULT_PROBLEM_WINDOW } from "@/lib/problems/windows";
import { ZAssigneeFilter } from "@/lib/triage/schemas";

/** `GET /api/v1/problems`: the window, the status and sort, and the filters the page keeps in its URL. */
export const ZProblemsQuery = z
  .object({
    window: z.enum(PROBLEM_WINDOWS).default(DEFAULT_PROBLEM_WINDOW),
    status: z.enum(PROBLEM_STATUSES).default("open"),
    sort: z.enum(PROBLEM_SORTS).default("last_seen"),
    state: z.enum(STATES).optional(),
    server: z.string().min(1).max(128).optional(),
    tool: z.string().min(1).max(128).optional(),
    text: z.string().max(128).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(100),
    assignee: ZAssigneeFilter.optional(),
  })
  .strict();

export type ProblemsQuery = z.infer<typeof ZProblemsQuery>;
