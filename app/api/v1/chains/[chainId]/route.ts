import type { ChainDetail } from "@/lib/dashboard/api-types";
import { getChainDetail } from "@/lib/server/db/chains";
import { notFound } from "@/lib/server/http/api-error";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", params: pathParams("chainId") },
  async ({ params }): Promise<ChainDetail> => {
    const detail = await getChainDetail(params.chainId);
    if (!detail) throw notFound("chain");
    return detail;
  },
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
