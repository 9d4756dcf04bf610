import { outcomeCoverage } from "@/lib/server/db/coverage";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseQuery } from "@/lib/server/reading/chain-query";
import { ZCoverageQuery } from "@/lib/server/reading/dashboard-queries";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", async ({ request }) => {
  const { since } = parseQuery(ZCoverageQuery, new URL(request.url));
  return Response.json(await outcomeCoverage(since ? new Date(since) : undefined));
});
