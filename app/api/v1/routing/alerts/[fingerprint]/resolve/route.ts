import { auditActor } from "@/lib/server/audit/audit-actor";
import { postResolveAlert } from "@/lib/server/routing/api/alerts-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ scope: "respond", params: pathParams("fingerprint") }, ({ params, caller }) =>
  postResolveAlert(params.fingerprint, auditActor(caller)),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
