import { getSilences, postSilence } from "@/lib/server/alerts/api/silences-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { actorName } from "@/lib/server/http/authenticate";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", () => getSilences());
export const POST = apiRoute("admin", ({ request, caller }) => postSilence(request, actorName(caller)));
