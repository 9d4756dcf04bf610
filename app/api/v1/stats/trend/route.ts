import type { Trend } from "@/lib/dashboard/api-types";
import { stateTrend } from "@/lib/server/db/state-trend";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ZTrendQuery } from "@/lib/server/reading/dashboard-queries";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", query: ZTrendQuery },
  async ({ query: { window } }): Promise<Trend> => stateTrend(window),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
