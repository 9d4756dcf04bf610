import { retryDelivery } from "@/lib/server/alerts/api/deliveries-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>("admin", ({ params }) => retryDelivery(params.id));

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
