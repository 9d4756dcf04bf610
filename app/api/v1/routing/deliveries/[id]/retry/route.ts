import { retryDelivery } from "@/lib/server/routing/api/deliveries-api";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ scope: "respond", params: pathParams("id") }, ({ params, caller }) =>
  retryDelivery(params.id, auditActor(caller)),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
