import type { ReconcileResult } from "@/lib/dashboard/api-types";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { reconcile } from "@/lib/server/triage/reconcile-service";
import { ZReconcileBody } from "@/lib/triage/schemas";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  { scope: "respond", params: pathParams("chainId"), body: ZReconcileBody },
  async ({ params, body, caller }): Promise<ReconcileResult> => reconcile(params.chainId, body, caller),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
