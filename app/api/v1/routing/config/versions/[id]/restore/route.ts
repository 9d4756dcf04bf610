import { auditActor } from "@/lib/server/audit/audit-actor";
import { restoreVersion } from "@/lib/server/routing/api/config-versions-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ scope: "config", params: pathParams("id") }, ({ request, params, caller }) =>
  restoreVersion({ rawId: params.id, ifMatch: request.headers.get("if-match"), actor: auditActor(caller) }),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
