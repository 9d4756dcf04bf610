import type { SearchMatchKind, SearchResults } from "@/lib/dashboard/api-types";
import { searchTarget } from "@/lib/dashboard/search";
import { chainSummaryColumns, toChainSummary } from "./chain-summaries";
import { getPrisma } from "./client";

const MAX_CHAINS = 50;
const MAX_SESSION_COUNT = 1000;

/**
 * Exact matches of one id among chain ids, session ids, request ids and operation keys. Each lookup is an index
 * probe (the primary key, the `(column, observed_at DESC)` indexes of session, request id and operation key) with a
 * LIMIT, so a request id shared by many chains ("1") costs no more than a page.
 */
export async function searchChainsById(query: string): Promise<SearchResults> {
  const prisma = getPrisma();
  const newest = { orderBy: [{ observedAt: "desc" as const }, { chainId: "desc" as const }] };
  const [byId, sessionChains, byRequest, byOperation] = await Promise.all([
    prisma.chain.findUnique({ where: { chainId: query }, select: chainSummaryColumns }),
    prisma.chain.count({ where: { sessionId: query }, take: MAX_SESSION_COUNT + 1 }),
    prisma.chain.findMany({
      where: { requestId: query },
      ...newest,
      take: MAX_CHAINS + 1,
      select: chainSummaryColumns,
    }),
    prisma.chain.findMany({
      where: { operationKey: query },
      ...newest,
      take: MAX_CHAINS + 1,
      select: chainSummaryColumns,
    }),
  ]);
  const seen = new Set<string>();
  const chains: SearchResults["chains"] = [];
  const add = (rows: (typeof byRequest)[number][], matchedBy: SearchMatchKind) => {
    for (const row of rows) {
      if (seen.has(row.chainId)) continue;
      seen.add(row.chainId);
      chains.push({ ...toChainSummary(row), matchedBy });
    }
  };
  add(byId ? [byId] : [], "chain_id");
  add(byRequest, "request_id");
  add(byOperation, "operation_key");
  const more = chains.length > MAX_CHAINS;
  const sessions =
    sessionChains > 0
      ? [
          {
            sessionId: query,
            chains: Math.min(sessionChains, MAX_SESSION_COUNT),
            moreChains: sessionChains > MAX_SESSION_COUNT,
          },
        ]
      : [];
  const results = { query, sessions, chains: chains.slice(0, MAX_CHAINS), more };
  return { ...results, target: searchTarget(results) };
}
