import type { ChainTriage } from "@/lib/dashboard/api-types";
import { readChainTriage } from "@/lib/server/db/chain-triage";
import { notFound } from "@/lib/server/http/api-error";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { type TriageAnswer, triageChain } from "@/lib/server/triage/triage-service";
import { ZTriageActionBody } from "@/lib/triage/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", params: pathParams("chainId") },
  async ({ params }): Promise<ChainTriage> => {
    const triage = await readChainTriage(params.chainId);
    if (!triage) throw notFound("chain");
    return triage;
  },
);

export const POST = apiRoute(
  { scope: "respond", params: pathParams("chainId"), body: ZTriageActionBody },
  async ({ params, body, caller }): Promise<TriageAnswer> => triageChain(params.chainId, body, caller),
);

const notAllowed = methodNotAllowed("GET", "POST");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
