import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { readTargetHealth } from "@/lib/server/routing/target-health-service";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read" }, () => readTargetHealth());

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
