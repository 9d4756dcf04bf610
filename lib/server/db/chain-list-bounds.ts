import type { Cursor } from "@/lib/dashboard/cursor";
import { HOUR_MS, hourFloor } from "@/lib/dashboard/rollup-hours";
import { Prisma } from "@/lib/generated/prisma/client";
import { type RollupFilters, rollupMatch, totalFromRollups } from "./chain-list-totals";
import { getPrisma } from "./client";

/**
 * Where a page's chains can be, by observed time: at or after `from`, before `before`. `complete`: no hour with
 * matches was left out, so a short page within the bounds is the whole answer.
 */
export type PageBounds = { from: Date; before: Date; complete: boolean };

/**
 * How a time-ordered page uses the rollups' hours: `never`; `always`, for a reason without a state or three or more of
 * state, server, tool, client, reason and labels (two labels count as two), all of which the rollups hold; `ifFew`
 * for a reason with a state, when the rollups hold few rows of the pair (READ_WHEN_FEW). No `chains` index holds such
 * a combination: the page either walks the time index past every chain that misses one filter or intersects bitmaps
 * over the whole table (a common label's is millions of rows), where the rollups tell in which hours the matches are.
 */
export type PageBoundsUse = "never" | "always" | "ifFew";

export function pageBoundsUse(query: RollupFilters & { session?: string; label: string[] }): PageBoundsUse {
  if (!totalFromRollups(query)) return "never";
  const dimensions = [
    Boolean(query.state?.length),
    Boolean(query.server),
    Boolean(query.tool),
    Boolean(query.client),
    query.reason !== undefined,
    query.label.length > 0,
    // Two labels are two filters: with any other one, a page would walk the time index past every chain missing it
    // (11 s for a server that never has the pair, at 10 M chains).
    query.label.length > 1,
  ];
  if (dimensions.filter(Boolean).length >= 3) return "always";
  // A reason has no index on `chains` (it is in an array): without a state, a page filtered by it walked the time
  // index past every chain without it, all of them for a code no chain has.
  if (query.reason !== undefined && !query.state?.length) return "always";
  // With a state (a problem's link) the state's index finds a common pair's chains at once, where the bounds would read
  // every rollup row of the pair in the range (73 k rows, 160 ms over 30 days at 10 M chains); but it walks every
  // chain of the state for a pair with few chains or none (10–45 s). A few rollup rows tell which it is.
  if (query.reason !== undefined) return "ifFew";
  return "never";
}

/**
 * For `ifFew`: the rollup rows of a state and a reason read before the pair counts as common (its page walks the
 * state's index). A pair with fewer has at most this many (server, tool, client, hour) tuples, read in a few ms.
 */
export const READ_WHEN_FEW = 5_000;

/**
 * The hours that hold the page's `take` chains, from the rollups and the deltas not folded yet: newest first (or
 * oldest first for `asc`) from the cursor, the hours with matches until they hold `take`, or every such hour when
 * fewer match. `null` when no chain matches. Whole hours: the page itself still applies `since`, `until` and the
 * cursor. Rollups and page are two snapshots, so a page read within bounds that comes back short is read again
 * without them (chain-list.ts). With `rowLimit`, "many" when the rollups hold that many rows of either state range:
 * the hours are not read.
 */
export async function readPageBounds(
  query: RollupFilters,
  order: "asc" | "desc",
  take: number,
  cursor?: Cursor,
  rowLimit?: number,
): Promise<PageBounds | null | "many"> {
  const cursorHour = cursor ? hourFloor(Date.parse(cursor.observedAt)) : null;
  let from = query.since ? hourFloor(Date.parse(query.since)) : null;
  let to = query.until ? hourFloor(Date.parse(query.until)) + HOUR_MS : null;
  if (cursorHour !== null && order === "desc") to = Math.min(to ?? Infinity, cursorHour + HOUR_MS);
  if (cursorHour !== null && order === "asc") from = Math.max(from ?? -Infinity, cursorHour);
  const { rollup, rollupWhere, current, shadowedOnly, anyState } = rollupMatch(query, {
    wholeHours: true,
    from: from === null ? null : new Date(from),
    to: to === null ? null : new Date(to),
    edges: [],
  });
  const direction = Prisma.raw(order);
  // Counted on the rollup's index alone (no `chains` column): reading the rows' counts costs a heap fetch each.
  const rowsAtLimit = (state: Prisma.Sql) => Prisma.sql`(select count(*) from (
      select 1 from ${rollup} r where ${rollupWhere("r", state)} limit ${rowLimit}) p) >= ${rowLimit}`;
  const many =
    rowLimit === undefined
      ? Prisma.sql`false`
      : shadowedOnly
        ? Prisma.sql`${rowsAtLimit(current ?? Prisma.sql`true`)} or ${rowsAtLimit(shadowedOnly)}`
        : rowsAtLimit(current ?? Prisma.sql`true`);
  const rows = await getPrisma().$queryRaw<
    { first: Date | null; last: Date | null; enough: Date | null; many: boolean }[]
  >`
    with probe as (select ${many} as many), folded_current as (
      select r.bucket, r.chains from ${rollup} r
      where ${rollupWhere("r", current)} and not (select many from probe)
    ), folded_shadowed as (
      ${shadowedOnly ? Prisma.sql`select r.bucket, r.chains from ${rollup} r where ${rollupWhere("r", shadowedOnly)} and not (select many from probe)` : Prisma.sql`select null::timestamptz as bucket, 0 as chains where false`}
    ), matched as (
      select * from folded_current union all select * from folded_shadowed
      union all
      select d.bucket, d.chains from chain_rollup_deltas d where ${rollupWhere("d", anyState)}
    ), hours as (
      select bucket, sum(chains) as n from matched group by bucket having sum(chains) > 0
    ), running as (
      select bucket, sum(n) over (order by bucket ${direction}) as chains from hours
    )
    select min(bucket) as first, max(bucket) as last,
      (select bucket from running where chains >= ${take} order by bucket ${direction} limit 1) as enough,
      (select many from probe) as many
    from hours`;
  const row = rows[0];
  if (row?.many) return "many";
  if (!row?.first || !row.last) return null;
  const first = row.first.getTime();
  const last = row.last.getTime();
  const enough = row.enough?.getTime();
  return order === "desc"
    ? {
        from: new Date(enough ?? first),
        before: new Date(last + HOUR_MS),
        complete: (enough ?? first) === first,
      }
    : {
        from: new Date(first),
        before: new Date((enough ?? last) + HOUR_MS),
        complete: (enough ?? last) === last,
      };
}
