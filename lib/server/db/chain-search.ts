import type { SearchMatch, SearchMatchKind, SearchResults } from "@/lib/dashboard/api-types";
import { Prisma } from "@/lib/generated/prisma/client";
import type { SearchQuery } from "@/lib/search/query";
import { chainSummarySql, toChainSummary } from "./chain-summaries";
import { getPrisma } from "./client";

const MAX_CHAINS = 50;
const MAX_SESSION_COUNT = 1000;
const MAX_SESSIONS = 20;
/** Rows one prefix or exact probe reads before its filters: the bound on any word's cost. */
const CANDIDATES = 1000;
// The largest code point: every string starting with a prefix sorts, byte by byte, before prefix + this.
const PREFIX_END = "\u{10FFFF}";

type Filters = Pick<SearchQuery, "server" | "tool" | "client" | "states" | "labels">;
type IdColumn = "chain_id" | "request_id" | "operation_key";
const KIND: Record<IdColumn, SearchMatchKind> = {
  chain_id: "chain_id",
  request_id: "request_id",
  operation_key: "operation_key",
};

function filterSql(filters: Filters): Prisma.Sql {
  const where: Prisma.Sql[] = [Prisma.sql`true`];
  if (filters.server !== undefined) where.push(Prisma.sql`c.server_name = ${filters.server}`);
  if (filters.tool !== undefined) where.push(Prisma.sql`c.tool = ${filters.tool}`);
  if (filters.client !== undefined) where.push(Prisma.sql`c.client_name = ${filters.client}`);
  if (filters.states.length > 0) {
    const states = Prisma.join(filters.states);
    where.push(Prisma.sql`(c.state in (${states}) or c.shadowed_state in (${states}))`);
  }
  if (filters.labels.length > 0) {
    const labels: Record<string, string> = {};
    for (const label of filters.labels) {
      const colon = label.indexOf(":");
      labels[label.slice(0, colon)] = label.slice(colon + 1);
    }
    where.push(Prisma.sql`c.labels @> ${JSON.stringify(labels)}::jsonb`);
  }
  return Prisma.join(where, " and ");
}

/**
 * Rows whose `column` is `word` (exact) or starts with it (prefix), newest first. A prefix reads the column's
 * `text_pattern_ops` index as a byte range (`~>=~`, `~<~`: the same under any database collation), at most
 * CANDIDATES rows before the token filters, so a one-letter prefix costs no more than a page.
 */
function probe(
  column: IdColumn | "session_id",
  word: string,
  match: SearchMatch,
  filters: Filters,
  take: number,
  candidates = CANDIDATES,
) {
  const col = Prisma.raw(`c.${column}`);
  const range =
    match === "exact"
      ? Prisma.sql`${col} = ${word}`
      : Prisma.sql`${col} ~>=~ ${word} and ${col} ~<~ ${word + PREFIX_END} and ${col} <> ${word}`;
  const order =
    match === "exact" ? Prisma.sql`c.observed_at desc, c.chain_id desc` : Prisma.sql`${col} using ~<~`;
  return Prisma.sql`select * from (select * from chains c where ${range} order by ${order} limit ${candidates}) c
    where starts_with(${col}, ${word}) and ${filterSql(filters)}
    order by c.observed_at desc, c.chain_id desc limit ${take}`;
}

type Row = Parameters<typeof toChainSummary>[0];

async function chainsBy(column: IdColumn, word: string, match: SearchMatch, filters: Filters) {
  const rows = await getPrisma().$queryRaw<Row[]>(
    Prisma.sql`select ${chainSummarySql} from (${probe(column, word, match, filters, MAX_CHAINS + 1)}) c`,
  );
  return rows.map((row) => ({ ...toChainSummary(row), matchedBy: KIND[column], match }));
}

async function sessionsBy(word: string, match: SearchMatch, filters: Filters) {
  const take = match === "exact" ? MAX_SESSION_COUNT + 1 : CANDIDATES;
  const rows = await getPrisma().$queryRaw<{ sessionId: string; chains: number }[]>(
    Prisma.sql`select c.session_id as "sessionId", count(*)::int as chains
      from (${probe("session_id", word, match, filters, take, take)}) c
      group by c.session_id order by c.session_id limit ${MAX_SESSIONS + 1}`,
  );
  return rows.map((row) => ({
    sessionId: row.sessionId,
    chains: Math.min(row.chains, MAX_SESSION_COUNT),
    moreChains: row.chains > MAX_SESSION_COUNT || (match === "prefix" && row.chains >= CANDIDATES),
    match,
  }));
}

/**
 * Every chain and session one word names: exact matches of its chain ids, session ids, JSON-RPC request ids and
 * operation keys first, then those that start with it; each probe bounded (see `probe`) and narrowed by the
 * query's tokens.
 */
export async function searchWord(word: string, filters: Filters) {
  const columns: IdColumn[] = ["chain_id", "request_id", "operation_key"];
  const matches: SearchMatch[] = ["exact", "prefix"];
  const [chainLists, sessionLists] = await Promise.all([
    Promise.all(matches.flatMap((match) => columns.map((column) => chainsBy(column, word, match, filters)))),
    Promise.all(matches.map((match) => sessionsBy(word, match, filters))),
  ]);
  return { chains: chainLists.flat(), sessions: sessionLists.flat() };
}

/** The words' matches merged: each chain and session once, at its first (best) match, capped. */
export function mergeMatches(
  found: Awaited<ReturnType<typeof searchWord>>[],
): Pick<SearchResults, "chains" | "sessions" | "more"> {
  const seenChains = new Set<string>();
  const seenSessions = new Set<string>();
  const byBest = <T extends { match: SearchMatch }>(rows: T[]) =>
    [...rows].sort((a, b) => Number(a.match === "prefix") - Number(b.match === "prefix"));
  const chains = byBest(found.flatMap((f) => f.chains)).filter(
    (chain) => !seenChains.has(chain.chainId) && seenChains.add(chain.chainId),
  );
  const sessions = byBest(found.flatMap((f) => f.sessions)).filter(
    (session) => !seenSessions.has(session.sessionId) && seenSessions.add(session.sessionId),
  );
  return {
    chains: chains.slice(0, MAX_CHAINS),
    sessions: sessions.slice(0, MAX_SESSIONS),
    more: chains.length > MAX_CHAINS || sessions.length > MAX_SESSIONS,
  };
}
