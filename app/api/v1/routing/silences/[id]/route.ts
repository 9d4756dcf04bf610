import { ROUTING_BODY_BYTES } from "@/lib/server/routing/api/read-body";
import { deleteSilence, putSilence, ZSilenceBody } from "@/lib/server/routing/api/silences-api";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";

export const dynamic = "force-dynamic";

export const PUT = apiRoute(
  { scope: "respond", params: pathParams("id"), body: ZSilenceBody, maxBytes: ROUTING_BODY_BYTES },
  ({ params, body, caller }) => putSilence(body, params.id, auditActor(caller)),
);
export const DELETE = apiRoute({ scope: "respond", params: pathParams("id") }, ({ params, caller }) =>
  deleteSilence(params.id, auditActor(caller)),
);

const notAllowed = methodNotAllowed("PUT", "DELETE");
export { notAllowed as GET, notAllowed as POST, notAllowed as PATCH };
