import type { ChainPage } from "@/lib/dashboard/api-types";
import { listChains } from "@/lib/server/db/chain-list";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ZChainQuery } from "@/lib/server/reading/chain-query";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", query: ZChainQuery, repeatable: ["label", "state"] },
  async ({ query }): Promise<ChainPage> => listChains(query),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
