import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { changePasswordRoute } from "@/lib/server/users/user-routes";

export const dynamic = "force-dynamic";

export const POST = changePasswordRoute;

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
