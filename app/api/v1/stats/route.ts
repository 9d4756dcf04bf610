import { countStates } from "@/lib/server/db/chains";
import { apiRoute } from "@/lib/server/http/api-route";
import { parseQuery, ZStatsQuery } from "@/lib/server/reading/chain-query";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";

export const dynamic = "force-dynamic";

export const GET = apiRoute("read", async ({ request }) => {
  const { since } = parseQuery(ZStatsQuery, new URL(request.url));
  const counts = await countStates(since ? new Date(since) : undefined);
  return Response.json({
    ...counts,
    queues: {
      falseSuccess: counts.states.false_success + counts.shadowed.false_success,
      effectUnknown: counts.states.effect_unknown + counts.shadowed.effect_unknown,
    },
  });
});

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
