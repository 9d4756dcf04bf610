import { getDeliveries } from "@/lib/server/alerts/api/deliveries-api";
import { apiRoute } from "@/lib/server/http/api-route";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", ({ request }) => getDeliveries(request));
