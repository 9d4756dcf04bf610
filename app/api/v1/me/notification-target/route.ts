import { ZNotificationTargetBody } from "@/lib/triage/assignee-target";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import {
  getNotificationTarget,
  setNotificationTarget,
  userCaller,
} from "@/lib/server/team/notification-target-service";

export const dynamic = "force-dynamic";

// The signed-in user's own channel for the alerts of the items assigned to them.
export const GET = apiRoute({ scope: "self" }, ({ caller }) => getNotificationTarget(userCaller(caller)));

export const PUT = apiRoute({ scope: "self", body: ZNotificationTargetBody }, ({ caller, body }) =>
  setNotificationTarget(userCaller(caller), body),
);

export const DELETE = apiRoute({ scope: "self" }, ({ caller }) =>
  setNotificationTarget(userCaller(caller), null),
);

const notAllowed = methodNotAllowed("GET", "PUT", "DELETE");
export { notAllowed as POST, notAllowed as PATCH };
