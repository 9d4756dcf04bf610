import { retryDelivery } from "@/lib/server/alerts/api/deliveries-api";
import { apiRoute } from "@/lib/server/http/api-route";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>("admin", ({ params }) => retryDelivery(params.id));
