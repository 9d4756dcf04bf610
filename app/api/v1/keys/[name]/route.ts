import { apiRoute } from "@/lib/server/http/api-route";
import { revokeKeyByName } from "@/lib/server/keys/manage-keys";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

/** Revokes (never deletes) the key: it stays listed as revoked, and its next request is refused. */
export const DELETE = apiRoute<{ name: string }>("admin", async ({ params }) => {
  await revokeKeyByName(params.name);
  return Response.json({ revoked: params.name });
});

const notAllowed = methodNotAllowed("DELETE");
export { notAllowed as GET, notAllowed as POST, notAllowed as PUT, notAllowed as PATCH };
