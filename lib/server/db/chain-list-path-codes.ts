import { STATE_SEVERITY_ORDER } from "@/lib/contract";
import { Prisma } from "@/lib/generated/prisma/client";
import { SHADOWING_STATES } from "./chain-list-totals";
import { chainSummarySql } from "./chain-summaries";

// A path code (`request.deadline_exceeded` and the rest, PATH_REASON_CODES) follows a chain's deciding reason, so no
// rollup counts it. Its chains are read through two partial indexes (migration 20261203020000): those with one path
// code, the second of their two reasons, by `(reasons[2], state, observed_at desc, chain_id desc)`, and the few with
// several through a GIN index. Each read names one state, so it is one range of the first index, read in order
// on the index alone (the states that match through their shadowed state are tested on the index too), and
// never walks chains of another state: with a state as a filter on a code's range, a state with few of the code's
// chains walked them all (35 s at 10 M chains for `healthy` and a code none of its chains has, by the time index).

/** The chains with one path code, whose second reason it is (a path code is never a deciding reason). */
const withOneCode = (code: string) => Prisma.sql`cardinality(c.reasons) = 2 and c.reasons[2] = ${code}`;
/** The chains with several path codes (few): any of their reasons. */
const withSeveralCodes = (code: string) =>
  Prisma.sql`cardinality(c.reasons) > 2 and c.reasons @> array[${code}]::text[]`;

/**
 * The states a filter matches, each a condition one range of the index answers: every wanted state as the current
 * one, and each shadowing state outside the filter with a wanted shadowed state. Without states, every state: the
 * classifier writes no other (contract §2).
 */
export function pathCodeStateRanges(states: readonly string[] | undefined): Prisma.Sql[] {
  if (!states?.length) return STATE_SEVERITY_ORDER.map((state) => Prisma.sql`c.state = ${state}`);
  const wanted = Prisma.join(states);
  const shadowing = [...SHADOWING_STATES].filter((state) => !states.includes(state));
  return [
    ...states.map((state) => Prisma.sql`c.state = ${state}`),
    ...shadowing.map((state) => Prisma.sql`c.state = ${state} and c.shadowed_state in (${wanted})`),
  ];
}

const whereAll = (conditions: Prisma.Sql[]) => Prisma.join(conditions, " and ");
const anyOf = (conditions: Prisma.Sql[]) =>
  Prisma.sql`(${Prisma.join(
    conditions.map((condition) => Prisma.sql`(${condition})`),
    " or ",
  )})`;

/** A path code among a chain's reasons, for a read with other filters whose indexes find the chains. */
export const pathCodeMatch = (code: string) => anyOf([withOneCode(code), withSeveralCodes(code)]);

/**
 * A page of a path code's chains in the given state ranges, newest (or oldest) first: the chain ids of each range in
 * order, from the index alone, and of the several-codes chains, merged to one page; then only that page's rows.
 * `filters` are the time range and the keyset, on `c.observed_at` and `c.chain_id`.
 */
export function readPathCodePage(
  code: string,
  stateRanges: Prisma.Sql[],
  filters: Prisma.Sql[],
  order: "asc" | "desc",
  take: number,
) {
  const direction = Prisma.raw(order === "desc" ? "desc" : "asc");
  const ordered = Prisma.sql`order by c.observed_at ${direction}, c.chain_id ${direction} limit ${take}`;
  const inRange = (match: Prisma.Sql) =>
    Prisma.sql`(select c.chain_id, c.observed_at from chains c where ${whereAll([match, ...filters])} ${ordered})`;
  const parts = [
    ...stateRanges.map((range) => inRange(Prisma.sql`${withOneCode(code)} and ${range}`)),
    inRange(Prisma.sql`${withSeveralCodes(code)} and ${anyOf(stateRanges)}`),
  ];
  return Prisma.sql`
    select ${chainSummarySql} from chains c
    where c.chain_id in (select c.chain_id from (${Prisma.join(parts, " union all ")}) c ${ordered})
    ${ordered}`;
}

/**
 * The conditions whose matches add up to a path code's chains in the given states (all without `states`), in the
 * order a capped total counts them: the one-code chains in the wanted states, on the index alone (without states the
 * code's whole range at once, with them one `in`, an index search each); those matching through their shadowed
 * state, a range each; then the several-codes chains.
 */
export function pathCodeCountParts(code: string, states: readonly string[] | undefined): Prisma.Sql[] {
  const ranges = pathCodeStateRanges(states);
  const current = states?.length ? Prisma.sql`c.state in (${Prisma.join(states)})` : Prisma.sql`true`;
  const shadowedOnly = states?.length ? ranges.slice(states.length) : [];
  return [
    ...[current, ...shadowedOnly].map((match) => Prisma.sql`${withOneCode(code)} and ${match}`),
    Prisma.sql`${withSeveralCodes(code)} and ${anyOf(ranges)}`,
  ];
}
