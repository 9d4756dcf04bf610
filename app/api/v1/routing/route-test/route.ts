import { postRouteTest } from "@/lib/server/alerts/api/route-test-api";
import { apiRoute } from "@/lib/server/http/api-route";

export const dynamic = "force-dynamic";

// A read: it answers a question and stores nothing.
export const POST = apiRoute("read", ({ request }) => postRouteTest(request));
