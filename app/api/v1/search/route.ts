import type { SearchResults } from "@/lib/dashboard/api-types";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ZSearchQuery } from "@/lib/server/reading/chain-query";
import { searchChains } from "@/lib/server/search/search-service";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", query: ZSearchQuery },
  async ({ query }): Promise<SearchResults> => searchChains(query.q),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
