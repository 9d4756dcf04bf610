import { checkOperation } from "@/lib/server/checks/check-operation-service";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { checkOperationKey } from "@/lib/server/operations/operations-service";

export const dynamic = "force-dynamic";

// "Check destination now" for a lease that expired with no record: the matching checks read it by the key.
export const POST = apiRoute({ scope: "respond", params: pathParams("key") }, async ({ params }) =>
  checkOperation(checkOperationKey(params.key), "on_demand"),
);

const notAllowed = methodNotAllowed("POST");
export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
