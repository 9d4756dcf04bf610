import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { revokeOwnSessionRoute } from "@/lib/server/users/user-routes";

export const dynamic = "force-dynamic";

export const DELETE = revokeOwnSessionRoute;

const notAllowed = methodNotAllowed("DELETE");
export { notAllowed as GET, notAllowed as POST, notAllowed as PUT, notAllowed as PATCH };
