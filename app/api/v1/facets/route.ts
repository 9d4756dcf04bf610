import type { Facets } from "@/lib/dashboard/api-types";
import { chainFacets } from "@/lib/server/db/chain-facets";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ZNoQuery } from "@/lib/server/reading/dashboard-queries";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read", query: ZNoQuery }, async (): Promise<Facets> => chainFacets());

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
