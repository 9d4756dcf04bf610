import { getRoutingConfig, putRoutingConfig } from "@/lib/server/alerts/api/config-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { actorName } from "@/lib/server/http/authenticate";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read" }, ({ request }) => getRoutingConfig(request));
export const PUT = apiRoute({ scope: "admin" }, ({ request, caller }) =>
  putRoutingConfig(request, actorName(caller)),
);

const notAllowed = methodNotAllowed("GET", "PUT");
export { notAllowed as POST, notAllowed as PATCH, notAllowed as DELETE };
