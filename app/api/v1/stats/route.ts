import type { Stats } from "@/lib/dashboard/api-types";
import { compareCounts, previousWindow } from "@/lib/dashboard/window-comparison";
import { countStates, countStatesBetween } from "@/lib/server/db/chains";
import { apiRoute } from "@/lib/server/http/api-route";
import { methodNotAllowed } from "@/lib/server/http/method-not-allowed";
import { ZStatsQuery } from "@/lib/server/reading/chain-query";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { scope: "read", query: ZStatsQuery },
  async ({ query: { since } }): Promise<Stats> => {
    const sinceDate = since ? new Date(since) : undefined;
    const before = sinceDate ? previousWindow(sinceDate.getTime(), Date.now()) : null;
    const [counts, previous] = await Promise.all([
      countStates(sinceDate),
      before ? countStatesBetween(new Date(before.fromMs), new Date(before.toMs)) : null,
    ]);
    return {
      ...counts,
      queues: {
        falseSuccess: counts.states.false_success + counts.shadowed.false_success,
        effectUnknown: counts.states.effect_unknown + counts.shadowed.effect_unknown,
      },
      previous:
        before && previous
          ? {
              from: new Date(before.fromMs).toISOString(),
              to: new Date(before.toMs).toISOString(),
              total: previous.total,
              change: compareCounts(counts, previous),
            }
          : null,
    };
  },
);

const notAllowed = methodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
