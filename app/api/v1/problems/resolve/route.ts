import { ZBulkResolveBody } from "@/lib/problems/schemas";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { type ResolveProblemsResult, resolveProblems } from "@/lib/server/problems/lifecycle-service";

export const dynamic = "force-dynamic";

// Bulk resolve: `{keys: [...], cascade}`, at most MAX_BULK_PROBLEMS keys, all or nothing.
export const POST = apiRoute(
  { scope: "respond", body: ZBulkResolveBody },
  async ({ body, caller }): Promise<ResolveProblemsResult> =>
    resolveProblems(body.keys, { cascade: body.cascade }, auditActor(caller)),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
