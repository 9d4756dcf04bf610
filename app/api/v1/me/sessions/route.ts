import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { listOwnSessionsRoute } from "@/lib/server/users/user-routes";

export const dynamic = "force-dynamic";

export const GET = listOwnSessionsRoute;

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
