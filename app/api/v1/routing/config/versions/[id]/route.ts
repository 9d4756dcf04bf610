import { getVersion } from "@/lib/server/routing/api/config-versions-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read", params: pathParams("id") }, ({ params }) =>
  getVersion(params.id),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
