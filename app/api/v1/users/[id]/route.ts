import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { updateUserRoute } from "@/lib/server/users/user-routes";

export const dynamic = "force-dynamic";

export const PATCH = updateUserRoute;

const notAllowed = methodNotAllowed("PATCH");
export { notAllowed as GET, notAllowed as POST, notAllowed as PUT, notAllowed as DELETE };
