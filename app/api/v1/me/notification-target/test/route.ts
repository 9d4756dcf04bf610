import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { sendTestToNotificationTarget, userCaller } from "@/lib/server/team/notification-target-service";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ scope: "self" }, ({ caller }) =>
  sendTestToNotificationTarget(userCaller(caller)),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
