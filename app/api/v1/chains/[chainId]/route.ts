import { getChainDetail } from "@/lib/server/db/chains";
import { notFound } from "@/lib/server/http/api-error";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ chainId: string }>("read", async ({ params }) => {
  const detail = await getChainDetail(params.chainId);
  if (!detail) throw notFound("chain");
  return Response.json(detail);
});

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
