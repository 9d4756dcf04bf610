import type { ProblemAssigneeResult } from "@/lib/problems/lifecycle";
import type { ProblemAssigneeBody } from "@/lib/problems/schemas";
import type { AuditActor } from "../audit/audit-actor";
import { appendAuditEvent } from "../db/audit-events";
import { getPrisma } from "../db/client";
import {
  deleteProblemAssignee,
  lockProblemKeys,
  readProblemAssignee,
  saveProblemAssignee,
} from "../db/problem-assignees";
import { ApiError } from "../http/api-error";
import { checkAssignee } from "../team/assignee-check";
import { knownProblems } from "./lifecycle-service";

/**
 * Assigns a problem to a responder or admin (the triage items' rule, `checkAssignee`), or unassigns it; audited.
 * The problem's owner is its own: its chains' items and alerts keep theirs (docs/ARCHITECTURE.md, One lifecycle).
 */
export async function assignProblem(
  key: string,
  body: ProblemAssigneeBody,
  actor: AuditActor,
  now = new Date(),
): Promise<ProblemAssigneeResult> {
  const [problem] = await knownProblems([key], () => "$.path.key", now);
  if (!problem) throw new ApiError(404, "not_found", "problem not found");
  return getPrisma().$transaction(async (tx) => {
    await lockProblemKeys(tx, [key]);
    const current = await readProblemAssignee(tx, key);
    const next = body.action === "assign" ? await checkAssignee(tx, body.assigneeId) : null;
    if ((current?.id ?? null) === (next?.id ?? null)) {
      const message = next
        ? `the problem is already assigned to ${next.username}`
        : "the problem is assigned to nobody";
      throw new ApiError(409, "invalid_transition", message, [
        { path: "$.action", code: "invalid_transition", message },
      ]);
    }
    if (next) await saveProblemAssignee(tx, key, problem.tuple, next.id, now, actor.actor);
    else await deleteProblemAssignee(tx, key);
    await appendAuditEvent(tx, {
      ...actor,
      action: body.action === "assign" ? "problem.assign" : "problem.unassign",
      targetType: "problem",
      targetId: key,
      before: { assignee: current },
      after: { assignee: next },
    });
    return { key, assignee: next };
  });
}
