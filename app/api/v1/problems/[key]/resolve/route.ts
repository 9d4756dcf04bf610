import type { ProblemResolutionResult } from "@/lib/problems/types";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { resolveProblem } from "@/lib/server/problems/problems-service";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  { scope: "respond", params: pathParams("key") },
  async ({ params, caller }): Promise<ProblemResolutionResult> =>
    resolveProblem(params.key, auditActor(caller)),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
