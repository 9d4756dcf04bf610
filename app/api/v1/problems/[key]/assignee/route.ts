import type { ProblemAssigneeResult } from "@/lib/problems/lifecycle";
import { ZProblemAssigneeBody } from "@/lib/problems/schemas";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { assignProblem } from "@/lib/server/problems/problem-assignee-service";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  { scope: "respond", params: pathParams("key"), body: ZProblemAssigneeBody },
  async ({ params, body, caller }): Promise<ProblemAssigneeResult> =>
    assignProblem(params.key, body, auditActor(caller)),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
