import { STATE_SEVERITY_ORDER, type State } from "@/lib/contract";
import type { ChainPage } from "@/lib/dashboard/api-types";
import { CHAIN_TOTAL_CAP, type ChainSort } from "@/lib/dashboard/chain-list-query";
import { type Cursor, encodeCursor } from "@/lib/dashboard/cursor";
import { Prisma } from "@/lib/generated/prisma/client";
import { type chainSummaryColumns, chainSummarySql, toChainSummary } from "./chain-summaries";
import {
  countFromRollupsCapped,
  labelPair,
  NOT_OBSERVED_CODES,
  PATH_REASON_CODES,
  SHADOWING_STATES,
  totalFromRollups,
} from "./chain-list-totals";
import {
  pathCodeCountParts,
  pathCodeMatch,
  pathCodeStateRanges,
  readPathCodePage,
} from "./chain-list-path-codes";
import { pageBoundsUse, READ_WHEN_FEW, readPageBounds } from "./chain-list-bounds";
import { LABEL_SET_OF_CHAIN, readLabelSetsHolding } from "./chain-label-sets";
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
  /**
   * The label sets that hold every `label` (readLabelSetsHolding), when listChains found them: the chains are read
   * from those sets' index ranges. Unset: the labels are a containment test.
   */
  labelSets?: string[];
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
 * so neither order sorts more than a page. The total is counted up to CHAIN_TOTAL_CAP + 1 rows, never further, in
 * no particular order (so it stops at the cap on whichever index or scan finds matches soonest). Raw SQL: a label
 * is tested by JSON containment (`@>`), which the GIN index on labels serves; Prisma's JSON path filter is not.
 */
export async function listChains(query: ChainListQuery): Promise<ChainPage> {
  // A key asked with two values: no chain can match, and a read would walk the whole table to prove it.
  if (contradictoryLabels(query.label)) return NO_CHAINS;
  // Two labels or more: no rollup counts them, so the chains are found through the label sets that hold them all.
  const labelSets = query.label.length > 1 ? await readLabelSetsHolding(labelObject(query.label)) : null;
  if (labelSets?.length === 0) return NO_CHAINS;
  const filters = labelSets ? { ...query, labelSets } : query;
  const where = chainFilters(filters);
  const [rows, total] = await Promise.all([
    filters.sort === "danger" ? pageByDanger(filters) : pageByTime(filters, where),
    countTotal(filters, where),
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

const NO_CHAINS: ChainPage = { chains: [], nextCursor: null, total: { count: 0, capped: false } };

/** `key:value` filters as the JSON object a chain's labels must contain. */
const labelObject = (labels: string[]): Record<string, string> =>
  Object.fromEntries(labels.map(labelPair).map(({ key, value }) => [key, value]));

/** The label filters as a condition no index serves (`coalesce` hides the containment from the GIN index). */
function labelTestedOnRows(labels: string[]): Prisma.Sql[] {
  const [containment] = chainFilters({ label: labels, order: "desc", sort: "time", limit: 0 });
  return containment ? [Prisma.sql`coalesce(${containment}, false)`] : [];
}

/** Whether two of the `key:value` filters name one key with different values. */
function contradictoryLabels(labels: string[]): boolean {
  const values = new Map<string, string>();
  for (const { key, value } of labels.map(labelPair)) {
    if ((values.get(key) ?? value) !== value) return true;
    values.set(key, value);
  }
  return false;
}

/** The capped total, on whichever path bounds its cost: see docs/ARCHITECTURE.md "Chain list totals". */
function countTotal(query: ChainListQuery, where: Prisma.Sql[]): Promise<number> {
  if (onlyStatesAndTime(query)) return countStatesCapped(query);
  if (onlyPathCodeStatesAndTime(query)) {
    return countPartsCapped(pathCodeCountParts(query.reason as string, query.state), timeFilters(query));
  }
  if (totalFromRollups(query)) {
    const untimed = chainFilters({ ...query, since: undefined, until: undefined });
    return countFromRollupsCapped(query, untimed, CHAIN_TOTAL_CAP);
  }
  return countCapped(where);
}

async function countRows(where: Prisma.Sql[], limit: number): Promise<number> {
  const rows = await getPrisma().$queryRaw<{ n: number }[]>`
    select count(*)::int as n from (select 1 from chains c ${whereSql(where)} limit ${limit}) t`;
  return rows[0]?.n ?? 0;
}

const countCapped = (where: Prisma.Sql[]) => countRows(where, CHAIN_TOTAL_CAP + 1);

const onlyStatesAndTime = (query: ChainListQuery) =>
  Boolean(query.state?.length) &&
  !(query.server || query.client || query.tool || query.session || query.reason || query.label.length);

/**
 * The capped total of a state filter (with or without a time range): chains by their current state, an index-only
 * count on `(state, observed_at)`; only when that stays under the cap, the chains matching through their shadowed
 * state alone (they need the heap for `state`) — instead of reading up to CHAIN_TOTAL_CAP heap rows for
 * `state in (…) or shadowed_state in (…)`.
 */
async function countStatesCapped(query: ChainListQuery): Promise<number> {
  const states = Prisma.join(query.state ?? []);
  const shadowedOnly = Prisma.sql`c.shadowed_state in (${states}) and c.state not in (${states})`;
  return countPartsCapped([Prisma.sql`c.state in (${states})`, shadowedOnly], timeFilters(query));
}

/** The matches of disjoint conditions (with `filters`), counted one condition at a time and no further than the cap. */
async function countPartsCapped(parts: Prisma.Sql[], filters: Prisma.Sql[]): Promise<number> {
  let total = 0;
  for (const part of parts) {
    total += await countRows([...filters, part], CHAIN_TOTAL_CAP + 1 - total);
    if (total > CHAIN_TOTAL_CAP) break;
  }
  return total;
}

/** A query's time range alone, for the reads that take its state and path code apart. */
const timeFilters = ({ since, until }: ChainListQuery) =>
  chainFilters({ since, until, label: [], order: "desc", sort: "time", limit: 0 });

const onlyPathCodeStatesAndTime = (query: ChainListQuery) =>
  query.reason !== undefined &&
  PATH_REASON_CODES.has(query.reason) &&
  !(query.server || query.client || query.tool || query.session || query.label.length);

// The partial index's predicate, spelled as the index spells it so the planner can match the two.
const UNSEEN_LAYER_CODES = Prisma.raw(`array['session.not_observed', 'catalog.not_observed']::text[]`);

/** The filters as SQL conditions on `chains c`; `withStates: false` leaves the state filter to the caller. */
export function chainFilters(query: ChainListQuery, withStates = true): Prisma.Sql[] {
  const where: Prisma.Sql[] = [];
  if (withStates && query.state?.length) {
    const states = Prisma.join(query.state);
    where.push(Prisma.sql`(c.state in (${states}) or c.shadowed_state in (${states}))`);
  }
  if (query.server) where.push(Prisma.sql`c.server_name = ${query.server}`);
  if (query.client) where.push(Prisma.sql`c.client_name = ${query.client}`);
  if (query.tool) where.push(Prisma.sql`c.tool = ${query.tool}`);
  if (query.session) where.push(Prisma.sql`c.session_id = ${query.session}`);
  if (query.reason && PATH_REASON_CODES.has(query.reason)) {
    where.push(pathCodeMatch(query.reason));
  } else if (query.reason && NOT_OBSERVED_CODES.has(query.reason)) {
    // The partial index of chains with an unseen layer (migration 20261205010000) holds them alone, in time order.
    where.push(Prisma.sql`c.reasons && ${UNSEEN_LAYER_CODES}`);
    where.push(Prisma.sql`c.reasons @> array[${query.reason}]::text[]`);
  } else if (query.reason) where.push(Prisma.sql`c.reasons @> array[${query.reason}]::text[]`);
  // One containment for every label: each `@>` walks the chain's labels, which is most of a scan's cost per row.
  if (contradictoryLabels(query.label)) where.push(Prisma.sql`false`);
  else if (query.labelSets && query.label.length > 1) {
    // The sets' index ranges find the chains; the containment, hidden from the GIN index, keeps the match exact
    // should two label sets share a hash.
    where.push(Prisma.sql`${LABEL_SET_OF_CHAIN} = any(${query.labelSets}::bigint[])`);
    where.push(Prisma.sql`coalesce(c.labels @> ${JSON.stringify(labelObject(query.label))}::jsonb, false)`);
  } else if (query.label.length > 0) {
    where.push(Prisma.sql`c.labels @> ${JSON.stringify(labelObject(query.label))}::jsonb`);
  }
  if (query.since) where.push(Prisma.sql`c.observed_at >= ${new Date(query.since)}`);
  if (query.until) where.push(Prisma.sql`c.observed_at <= ${new Date(query.until)}`);
  return where;
}

const whereSql = (where: Prisma.Sql[]) =>
  where.length === 0 ? Prisma.empty : Prisma.sql`where ${Prisma.join(where, " and ")}`;

/** After the cursor in (observedAt, chainId) order, descending or ascending. */
function afterCursor(cursor: Cursor, order: "asc" | "desc"): Prisma.Sql {
  const at = new Date(cursor.observedAt);
  return order === "desc"
    ? Prisma.sql`(c.observed_at, c.chain_id) < (${at}::timestamptz, ${cursor.chainId}::text)`
    : Prisma.sql`(c.observed_at, c.chain_id) > (${at}::timestamptz, ${cursor.chainId}::text)`;
}

function readPage(where: Prisma.Sql[], order: "asc" | "desc", take: number): Promise<Row[]> {
  const direction = Prisma.raw(order === "desc" ? "desc" : "asc");
  return getPrisma().$queryRaw<Row[]>`
    select ${chainSummarySql} from chains c ${whereSql(where)}
    order by c.observed_at ${direction}, c.chain_id ${direction}
    limit ${take}`;
}

async function pageByTime(query: ChainListQuery, where: Prisma.Sql[]): Promise<Row[]> {
  const keyset = query.cursor ? [afterCursor(query.cursor, query.order)] : [];
  const take = query.limit + 1;
  if (onlyPathCodeStatesAndTime(query))
    return readPageOfPathCode(query, pathCodeStateRanges(query.state), keyset, take);
  const use = pageBoundsUse(query);
  if (use === "never") return readPage([...where, ...keyset], query.order, take);
  const rowLimit = use === "ifFew" ? READ_WHEN_FEW : undefined;
  const bounds = await readPageBounds(query, query.order, take, query.cursor, rowLimit);
  if (bounds === "many") return readPage([...where, ...keyset], query.order, take);
  if (!bounds) return [];
  const within = [Prisma.sql`c.observed_at >= ${bounds.from}`, Prisma.sql`c.observed_at < ${bounds.before}`];
  // Within the bounds the label is tested on the rows the other filters' indexes find, never through the labels' GIN
  // index: the planner ANDed a common label's bitmap (2 M entries, 300 ms at 10 M chains) with a few thousand rows.
  const unindexedLabel = chainFilters({ ...query, label: [] }).concat(labelTestedOnRows(query.label));
  const rows = await readPage([...unindexedLabel, ...keyset, ...within], query.order, take);
  // Short while hours with matches were left out: fewer chains matched than the rollups held when they were read
  // (they are another snapshot), or since/until cut the last hour the bounds counted on.
  return rows.length < take && !bounds.complete ? readPage([...where, ...keyset], query.order, take) : rows;
}

/** A page of a path code with states and a time range at most, one index range per state (chain-list-path-codes). */
function readPageOfPathCode(
  query: ChainListQuery,
  stateRanges: Prisma.Sql[],
  keyset: Prisma.Sql[],
  take: number,
) {
  const page = readPathCodePage(
    query.reason as string,
    stateRanges,
    [...timeFilters(query), ...keyset],
    query.order,
    take,
  );
  return getPrisma().$queryRaw<Row[]>(page);
}

const dangerRank = (state: string) => {
  const rank = STATE_SEVERITY_ORDER.indexOf(state as State);
  return rank === -1 ? STATE_SEVERITY_ORDER.length : rank;
};

async function pageByDanger(query: ChainListQuery): Promise<Row[]> {
  const where = chainFilters(query, false);
  const wanted = new Set<string>(query.state ?? []);
  const firstRank = query.cursor?.danger ?? 0;
  const rows: Row[] = [];
  for (let rank = firstRank; rank < STATE_SEVERITY_ORDER.length && rows.length <= query.limit; rank++) {
    const state = STATE_SEVERITY_ORDER[rank] as State;
    if (wanted.size > 0 && !wanted.has(state) && !SHADOWING_STATES.has(state)) continue;
    const keyset = query.cursor && rank === firstRank ? [afterCursor(query.cursor, "desc")] : [];
    const take = query.limit + 1 - rows.length;
    const read = (match: Prisma.Sql) =>
      onlyPathCodeStatesAndTime(query)
        ? readPageOfPathCode({ ...query, order: "desc" }, [match], keyset, take)
        : readPage([...where, match, ...keyset], "desc", take);
    if (wanted.size === 0 || wanted.has(state)) {
      rows.push(...(await read(Prisma.sql`c.state = ${state}`)));
      continue;
    }
    // Outside the filter, a state matches only through its shadowed state: one ordered read of
    // `chains_shadowed_state_observed_at_idx` per wanted state, merged, so nothing sorts more than a page.
    const shadowedReads = await Promise.all(
      [...wanted].map((shadowed) => read(Prisma.sql`c.state = ${state} and c.shadowed_state = ${shadowed}`)),
    );
    rows.push(...shadowedReads.flat().sort(newestFirst).slice(0, take));
  }
  return rows;
}

const newestFirst = (a: Row, b: Row) =>
  b.observedAt.getTime() - a.observedAt.getTime() ||
  (a.chainId < b.chainId ? 1 : a.chainId > b.chainId ? -1 : 0);
