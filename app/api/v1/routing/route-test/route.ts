import { postRouteTest } from "@/lib/server/alerts/api/route-test-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

// A read: it answers a question and stores nothing.
export const POST = apiRoute({ scope: "read" }, ({ request }) => postRouteTest(request));

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
