import { auditActor } from "@/lib/server/audit/audit-actor";
import {
  getRoutingConfig,
  putRoutingConfig,
  ZGetConfigQuery,
  ZPutConfigQuery,
} from "@/lib/server/routing/api/config-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

// Reading needs `read` (an `admin` key reads too); applying needs a dashboard session or an `admin` key (CI).
export const GET = apiRoute({ scope: "read", query: ZGetConfigQuery }, ({ query, request }) =>
  getRoutingConfig(query, request),
);

// The body (JSON or YAML) is read by the handler itself: apiRoute's body reader takes JSON only.
export const PUT = apiRoute({ scope: "config", query: ZPutConfigQuery }, ({ request, query, caller }) =>
  putRoutingConfig({ request, query, actor: auditActor(caller) }),
);

const notAllowed = methodNotAllowed("GET", "PUT");
export { notAllowed as POST, notAllowed as PATCH, notAllowed as DELETE };
