import { outcomeCoverage } from "@/lib/server/db/coverage";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseQuery } from "@/lib/server/reading/chain-query";
import { ZCoverageQuery } from "@/lib/server/reading/dashboard-queries";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", async ({ request }) => {
  const { since } = parseQuery(ZCoverageQuery, new URL(request.url));
  return Response.json(await outcomeCoverage(since ? new Date(since) : undefined));
});

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
