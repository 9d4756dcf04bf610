import { chainFacets } from "@/lib/server/db/chain-facets";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseQuery } from "@/lib/server/reading/chain-query";
import { ZNoQuery } from "@/lib/server/reading/dashboard-queries";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", async ({ request }) => {
  parseQuery(ZNoQuery, new URL(request.url));
  return Response.json(await chainFacets());
});

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
