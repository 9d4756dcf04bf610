import { ROUTING_BODY_BYTES } from "@/lib/server/routing/api/read-body";
import { actorName } from "@/lib/server/http/authenticate";
import {
  getRoutingConfig,
  putRoutingConfig,
  ZConfigBody,
  ZGetConfigQuery,
  ZPutConfigQuery,
} from "@/lib/server/routing/api/config-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read", query: ZGetConfigQuery }, ({ query }) =>
  getRoutingConfig(query),
);

export const PUT = apiRoute(
  { scope: "admin", query: ZPutConfigQuery, body: ZConfigBody, maxBytes: ROUTING_BODY_BYTES },
  ({ request, query, body, caller }) =>
    putRoutingConfig({ body, query, ifMatch: request.headers.get("if-match"), actor: actorName(caller) }),
);

const notAllowed = methodNotAllowed("GET", "PUT");
export { notAllowed as POST, notAllowed as PATCH, notAllowed as DELETE };
