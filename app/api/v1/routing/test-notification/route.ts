import { ROUTING_BODY_BYTES } from "@/lib/server/routing/api/read-body";
import { postTestNotification, ZTestNotificationBody } from "@/lib/server/routing/api/test-notification-api";
import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  { scope: "manage", body: ZTestNotificationBody, maxBytes: ROUTING_BODY_BYTES },
  ({ body, caller }) => postTestNotification(body, auditActor(caller)),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
