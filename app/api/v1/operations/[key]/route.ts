import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { checkOperationKey, readOperationView } from "@/lib/server/operations/operations-service";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "read", params: pathParams("key") }, async ({ params }) =>
  readOperationView(checkOperationKey(params.key)),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
