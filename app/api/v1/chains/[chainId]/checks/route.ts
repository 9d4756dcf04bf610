import type { ChainChecksAnswer } from "@/lib/dashboard/api-types";
import { chainCheckRuns, checkChain } from "@/lib/server/checks/check-chain-service";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";

export const dynamic = "force-dynamic";

// The chain's destination check runs, newest first.
export const GET = apiRoute(
  { scope: "read", params: pathParams("chainId") },
  async ({ params }): Promise<ChainChecksAnswer> => chainCheckRuns(params.chainId),
);

// "Check destination now": runs every matching check; a settled effect reconciles the chain (actor check:<name>).
export const POST = apiRoute(
  { scope: "respond", params: pathParams("chainId") },
  async ({ params }): Promise<ChainChecksAnswer> => checkChain(params.chainId, "on_demand"),
);

const notAllowed = methodNotAllowed("GET", "POST");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
