import { getSessionChains } from "@/lib/server/db/chains";
import { notFound } from "@/lib/server/http/api-error";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ sessionId: string }>("read", async ({ params }) => {
  const session = await getSessionChains(params.sessionId);
  if (!session) throw notFound("session");
  return Response.json(session);
});

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
