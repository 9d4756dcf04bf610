import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { assignAlert, ZAlertAssigneeBody } from "@/lib/server/triage/alert-assignee-service";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  { scope: "respond", params: pathParams("fingerprint"), body: ZAlertAssigneeBody },
  ({ params, body, caller }) => assignAlert(params.fingerprint, body, caller),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
