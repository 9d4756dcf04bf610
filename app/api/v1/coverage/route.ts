import type { Coverage } from "@/lib/dashboard/api-types";
import { outcomeCoverage } from "@/lib/server/db/coverage";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ZCoverageQuery } from "@/lib/server/reading/dashboard-queries";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", query: ZCoverageQuery },
  async ({ query: { since } }): Promise<Coverage> => outcomeCoverage(since ? new Date(since) : undefined),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
