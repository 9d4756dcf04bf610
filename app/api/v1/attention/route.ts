import type { ChainSummary } from "@/lib/dashboard/api-types";
import { listNewestNeedingAttention } from "@/lib/server/db/chain-summaries";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ZAttentionQuery } from "@/lib/server/reading/dashboard-queries";

export const dynamic = "force-dynamic";

/** The newest chains that need a person: neither healthy nor in flight. */
export const GET = apiRoute(
  { scope: "read", query: ZAttentionQuery },
  async ({ query: { limit, since } }): Promise<{ chains: ChainSummary[] }> => ({
    chains: await listNewestNeedingAttention(limit, since ? new Date(since) : undefined),
  }),
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
