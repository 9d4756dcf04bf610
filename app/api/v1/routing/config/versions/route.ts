import { listVersions, ZVersionsQuery } from "@/lib/server/routing/api/config-versions-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read", query: ZVersionsQuery }, ({ query }) => listVersions(query));

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
