import { ROUTING_BODY_BYTES } from "@/lib/server/routing/api/read-body";
import { deleteSilence, putSilence, ZSilenceBody } from "@/lib/server/routing/api/silences-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";

export const dynamic = "force-dynamic";

export const PUT = apiRoute(
  { scope: "respond", params: pathParams("id"), body: ZSilenceBody, maxBytes: ROUTING_BODY_BYTES },
  ({ params, body }) => putSilence(body, params.id),
);
export const DELETE = apiRoute({ scope: "respond", params: pathParams("id") }, ({ params }) =>
  deleteSilence(params.id),
);

const notAllowed = methodNotAllowed("PUT", "DELETE");
export { notAllowed as GET, notAllowed as POST, notAllowed as PATCH };
