import { listChains } from "@/lib/server/db/chains";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseQuery, ZChainQuery } from "@/lib/server/reading/chain-query";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", async ({ request }) =>
  Response.json(await listChains(parseQuery(ZChainQuery, new URL(request.url), ["label"]))),
);
