import { ZProblemResolveBody } from "@/lib/problems/schemas";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { parseBody, readJson } from "@/lib/server/http/read-json";
import { type ProblemResolveAnswer, resolveProblem } from "@/lib/server/problems/problems-service";

export const dynamic = "force-dynamic";

// The body is optional (`{cascade: true}` also resolves the problem's queue items and alerts): a bare POST resolves
// the problem alone.
export const POST = apiRoute(
  { scope: "respond", params: pathParams("key") },
  async ({ request, params, caller }): Promise<ProblemResolveAnswer> => {
    const length = Number(request.headers.get("content-length") ?? 0);
    const sent =
      request.headers.get("content-type") !== null || length > 0 || request.headers.has("transfer-encoding");
    const body = parseBody(ZProblemResolveBody, sent ? await readJson(request) : {});
    return resolveProblem(params.key, body, auditActor(caller));
  },
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
