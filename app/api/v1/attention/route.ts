import { listNewestNeedingAttention } from "@/lib/server/db/chain-summaries";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseQuery } from "@/lib/server/reading/chain-query";
import { ZAttentionQuery } from "@/lib/server/reading/dashboard-queries";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

/** The newest chains that need a person: neither healthy nor in flight. */
export const GET = apiRoute("read", async ({ request }) => {
  const { limit, since } = parseQuery(ZAttentionQuery, new URL(request.url));
  return Response.json({
    chains: await listNewestNeedingAttention(limit, since ? new Date(since) : undefined),
  });
});

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
