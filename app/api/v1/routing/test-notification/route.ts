import { postTestNotification } from "@/lib/server/alerts/api/test-notification-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ scope: "admin" }, ({ request }) => postTestNotification(request));

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
