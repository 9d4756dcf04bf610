import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { revokeInviteRoute } from "@/lib/server/users/user-routes";

export const dynamic = "force-dynamic";

export const DELETE = revokeInviteRoute;

const notAllowed = methodNotAllowed("DELETE");
export { notAllowed as GET, notAllowed as POST, notAllowed as PUT, notAllowed as PATCH };
