import { listTeamMembers, type TeamMemberRow } from "@/lib/server/db/team-members";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

// The team for the assignee picker, in the shape of `GET /api/v1/users` (i-users): the picker offers the
// responders and admins who are not disabled, and names any user an item is already assigned to.
export const GET = apiRoute(
  { scope: "read" },
  async (): Promise<{ users: TeamMemberRow[] }> => ({ users: await listTeamMembers() }),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
