import { getSessionChains } from "@/lib/server/db/chains";
import { notFound } from "@/lib/server/http/api-error";
import { apiRoute } from "@/lib/server/http/api-route";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ sessionId: string }>("read", async ({ params }) => {
  const session = await getSessionChains(params.sessionId);
  if (!session) throw notFound("session");
  return Response.json(session);
});
