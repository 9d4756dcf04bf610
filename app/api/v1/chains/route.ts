import { listChains } from "@/lib/server/db/chains";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseQuery, ZChainQuery } from "@/lib/server/reading/chain-query";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", async ({ request }) =>
  Response.json(await listChains(parseQuery(ZChainQuery, new URL(request.url), ["label"]))),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
