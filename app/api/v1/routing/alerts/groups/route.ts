import { getAlertGroups, ZAlertGroupsQuery } from "@/lib/server/routing/api/alert-groups-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { assigneeFilterId } from "@/lib/server/team/assignee-check";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read", query: ZAlertGroupsQuery }, ({ query, caller }) =>
  getAlertGroups({ ...query, assigneeUserId: assigneeFilterId(query.assignee, caller) }),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
