import { getSilences, postSilence } from "@/lib/server/alerts/api/silences-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { actorName } from "@/lib/server/http/authenticate";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read" }, () => getSilences());
export const POST = apiRoute({ scope: "admin" }, ({ request, caller }) =>
  postSilence(request, actorName(caller)),
);

const notAllowed = methodNotAllowed("GET", "POST");
export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
