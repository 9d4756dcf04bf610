import { STATE_SEVERITY_ORDER, type State } from "@/lib/contract";
import type { ChainPage } from "@/lib/dashboard/api-types";
import { CHAIN_TOTAL_CAP, type ChainSort } from "@/lib/dashboard/chain-list-query";
import { type Cursor, encodeCursor } from "@/lib/dashboard/cursor";
import type { Prisma } from "@/lib/generated/prisma/client";
import { chainSummaryColumns, toChainSummary } from "./chain-summaries";
import { getPrisma } from "./client";

/** A chain list's filters and page, as the read endpoint parsed them (`ZChainQuery`). */
export type ChainListQuery = {
  /** Any of these as the current or the shadowed state. */
  state?: State[];
  server?: string;
  client?: string;
  tool?: string;
  session?: string;
  /** A reason code among the chain's reasons (a problem's deciding reason opens its chains with it). */
  reason?: string;
  /** `key:value` pairs, all of which must match. */
  label: string[];
  /** Already resolved to an instant (a relative `1h` at the time of the request). */
  since?: string;
  until?: string;
  order: "asc" | "desc";
  sort: ChainSort;
  cursor?: Cursor;
  limit: number;
};

type Row = Prisma.ChainGetPayload<{ select: typeof chainSummaryColumns }>;

/**
 * A page of chains with keyset pagination: by time on (observedAt, chainId), or by danger — the current state's
 * rank in STATE_SEVERITY_ORDER, then newest first — read one state at a time down `chains_state_observed_at_idx`,
 * so neither order sorts more than a page. The total is counted up to CHAIN_TOTAL_CAP + 1 rows, never further.
 */
export async function listChains(query: ChainListQuery): Promise<ChainPage> {
  const where = filtersOf(query);
  const [rows, total] = await Promise.all([
    query.sort === "danger" ? pageByDanger(query) : pageByTime(query, where),
    getPrisma().chain.count({ where: { AND: where }, take: CHAIN_TOTAL_CAP + 1 }),
  ]);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const states = new Set<string>(query.state ?? []);
  return {
    chains: page.map((row) => ({
      ...toChainSummary(row),
      matchedBy: states.size > 0 && !states.has(row.state) ? ("shadowed" as const) : ("state" as const),
    })),
    nextCursor:
      rows.length > query.limit && last
        ? encodeCursor({
            observedAt: last.observedAt.toISOString(),
            chainId: last.chainId,
            ...(query.sort === "danger" ? { danger: dangerRank(last.state) } : {}),
          })
        : null,
    total: { count: Math.min(total, CHAIN_TOTAL_CAP), capped: total > CHAIN_TOTAL_CAP },
  };
}

/** The filters as Prisma conditions; `withStates: false` leaves the state filter to the caller. */
function filtersOf(query: ChainListQuery, withStates = true): Prisma.ChainWhereInput[] {
  const where: Prisma.ChainWhereInput[] = [];
  if (withStates && query.state?.length) {
    where.push({ OR: [{ state: { in: query.state } }, { shadowedState: { in: query.state } }] });
  }
  if (query.server) where.push({ serverName: query.server });
  if (query.client) where.push({ clientName: query.client });
  if (query.tool) where.push({ tool: query.tool });
  if (query.session) where.push({ sessionId: query.session });
  if (query.reason) where.push({ reasons: { has: query.reason } });
  for (const label of query.label) {
    const split = label.indexOf(":");
    where.push({ labels: { path: [label.slice(0, split)], equals: label.slice(split + 1) } });
  }
  if (query.since) where.push({ observedAt: { gte: new Date(query.since) } });
  if (query.until) where.push({ observedAt: { lte: new Date(query.until) } });
  return where;
}

/** After the cursor in (observedAt, chainId) order, descending or ascending. */
function afterCursor(cursor: Cursor, order: "asc" | "desc"): Prisma.ChainWhereInput {
  const before = order === "desc" ? "lt" : "gt";
  const at = new Date(cursor.observedAt);
  return {
    OR: [{ observedAt: { [before]: at } }, { observedAt: at, chainId: { [before]: cursor.chainId } }],
  };
}

async function pageByTime(query: ChainListQuery, where: Prisma.ChainWhereInput[]): Promise<Row[]> {
  const keyset = query.cursor ? [afterCursor(query.cursor, query.order)] : [];
  return getPrisma().chain.findMany({
    where: { AND: [...where, ...keyset] },
    orderBy: [{ observedAt: query.order }, { chainId: query.order }],
    take: query.limit + 1,
    select: chainSummaryColumns,
  });
}

const dangerRank = (state: string) => {
  const rank = STATE_SEVERITY_ORDER.indexOf(state as State);
  return rank === -1 ? STATE_SEVERITY_ORDER.length : rank;
};

// Contract §2: a shadowed state is a request-layer problem hidden behind a session or catalog state, so only these
// current states can match a state filter through their shadowed state.
const SHADOWING_STATES = new Set<string>(["needs_auth", "incompatible_session", "stale_catalog"]);

async function pageByDanger(query: ChainListQuery): Promise<Row[]> {
  const where = filtersOf(query, false);
  const wanted = new Set<string>(query.state ?? []);
  const firstRank = query.cursor?.danger ?? 0;
  const rows: Row[] = [];
  for (let rank = firstRank; rank < STATE_SEVERITY_ORDER.length && rows.length <= query.limit; rank++) {
    const state = STATE_SEVERITY_ORDER[rank] as State;
    if (wanted.size > 0 && !wanted.has(state) && !SHADOWING_STATES.has(state)) continue;
    const keyset = query.cursor && rank === firstRank ? [afterCursor(query.cursor, "desc")] : [];
    const take = query.limit + 1 - rows.length;
    const read = (match: Prisma.ChainWhereInput) =>
      getPrisma().chain.findMany({
        where: { AND: [...where, match, ...keyset] },
        orderBy: [{ observedAt: "desc" }, { chainId: "desc" }],
        take,
        select: chainSummaryColumns,
      });
    if (wanted.size === 0 || wanted.has(state)) {
      rows.push(...(await read({ state })));
      continue;
    }
    // Outside the filter, a state matches only through its shadowed state: one ordered read of
    // `chains_shadowed_state_observed_at_idx` per wanted state, merged, so nothing sorts more than a page.
    const shadowedReads = await Promise.all(
      [...wanted].map((shadowed) => read({ state, shadowedState: shadowed })),
    );
    rows.push(...shadowedReads.flat().sort(newestFirst).slice(0, take));
  }
  return rows;
}

const newestFirst = (a: Row, b: Row) =>
  b.observedAt.getTime() - a.observedAt.getTime() ||
  (a.chainId < b.chainId ? 1 : a.chainId > b.chainId ? -1 : 0);
