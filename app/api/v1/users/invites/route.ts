import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { createInviteRoute, listInvitesRoute } from "@/lib/server/users/user-routes";

export const dynamic = "force-dynamic";

export const GET = listInvitesRoute;
export const POST = createInviteRoute;

const notAllowed = methodNotAllowed("GET", "POST");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
