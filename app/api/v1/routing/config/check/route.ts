import { checkRoutingConfig } from "@/lib/server/routing/api/config-api";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

// A dry run of PUT config: validated against the current version, nothing saved. It compares secrets with the stored
// ones, so it needs what applying needs (a session or an `admin` key), not `read`.
export const POST = apiRoute({ scope: "config" }, ({ request }) => checkRoutingConfig(request));

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
