import { getAlerts } from "@/lib/server/alerts/api/alerts-api";
import { apiRoute } from "@/lib/server/http/api-route";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", ({ request }) => getAlerts(request));
