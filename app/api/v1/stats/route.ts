import type { Stats } from "@/lib/dashboard/api-types";
import { countStates } from "@/lib/server/db/chains";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ZStatsQuery } from "@/lib/server/reading/chain-query";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", query: ZStatsQuery },
  async ({ query: { since } }): Promise<Stats> => {
    const counts = await countStates(since ? new Date(since) : undefined);
    return {
      ...counts,
      queues: {
        falseSuccess: counts.states.false_success + counts.shadowed.false_success,
        effectUnknown: counts.states.effect_unknown + counts.shadowed.effect_unknown,
      },
    };
  },
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
