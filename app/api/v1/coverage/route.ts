import type { Coverage } from "@/lib/dashboard/api-types";
import { coverageWithChecks } from "@/lib/server/checks/coverage-service";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ZCoverageQuery } from "@/lib/server/reading/dashboard-queries";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", query: ZCoverageQuery },
  async ({ query: { since } }): Promise<Coverage> => coverageWithChecks(since ? new Date(since) : undefined),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
