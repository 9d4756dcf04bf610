import { apiRoute } from "@/lib/server/http/api-route";
import { readJsonBody } from "@/lib/server/http/read-json";
import { ZReconcileBody } from "@/lib/triage/schemas";
import { reconcile } from "@/lib/server/triage/reconcile-service";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ chainId: string }>("admin", async ({ request, params, caller }) => {
  const body = await readJsonBody(request, ZReconcileBody);
  return Response.json(await reconcile(params.chainId, body, caller));
});

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
