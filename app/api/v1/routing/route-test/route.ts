import { ROUTING_BODY_BYTES } from "@/lib/server/routing/api/read-body";
import { postRouteTest, ZRouteTest } from "@/lib/server/routing/api/route-test-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

// A read: it answers a question and stores nothing.
export const POST = apiRoute({ scope: "read", body: ZRouteTest, maxBytes: ROUTING_BODY_BYTES }, ({ body }) =>
  postRouteTest(body),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
