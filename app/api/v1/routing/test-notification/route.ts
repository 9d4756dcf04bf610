import { postTestNotification } from "@/lib/server/alerts/api/test-notification-api";
import { apiRoute } from "@/lib/server/http/api-route";

export const dynamic = "force-dynamic";

export const POST = apiRoute("admin", ({ request }) => postTestNotification(request));
