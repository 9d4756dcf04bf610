import { auditActor } from "@/lib/server/audit/audit-actor";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { pathParams } from "@/lib/server/http/path-params";
import { revokeKeyByName } from "@/lib/server/keys/manage-keys";

export const dynamic = "force-dynamic";

/** Revokes (never deletes) the key: it stays listed as revoked, and its next request is refused. */
export const DELETE = apiRoute(
  { scope: "manage", params: pathParams("name") },
  async ({ params, caller }): Promise<{ revoked: string }> => {
    await revokeKeyByName(params.name, auditActor(caller));
    return { revoked: params.name };
  },
);

const notAllowed = methodNotAllowed("DELETE");
export { notAllowed as GET, notAllowed as POST, notAllowed as PUT, notAllowed as PATCH };
