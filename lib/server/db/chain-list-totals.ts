import { HOUR_MS, hourCeil, hourFloor } from "@/lib/dashboard/rollup-hours";
import { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";

/** The rollup dimensions of a chain-list query: the filters a total can be summed from `chain_rollups` for. */
export type RollupFilters = {
  /** Any of these as the current or the shadowed state. */
  state?: string[];
  /** Among the chain's reasons. */
  reason?: string;
  server?: string;
  client?: string;
  tool?: string;
  since?: string;
  until?: string;
  /**
   * `key:value` pairs: one is summed from the label rollup; more from the label set rollup, over `labelSets` (the
   * sets that hold them all, readLabelSetsHolding), or stay on `chains` without them.
   */
  label?: string[];
  labelSets?: string[];
};

// Contract §2: a shadowed state is a request-layer problem hidden behind a session or catalog state, so only these
// current states can match a state filter through their shadowed state.
export const SHADOWING_STATES = new Set<string>(["needs_auth", "incompatible_session", "stale_catalog"]);

// Contract §3: the codes of the path to a state, which may follow the deciding reason in `reasons`. Any other code
// can only be a chain's deciding reason (reasons[0], the rollups' `reason`), so "among the chain's reasons" and "the
// deciding reason" count the same chains for it.
export const PATH_REASON_CODES = new Set([
  "request.cancelled",
  "request.deadline_exceeded",
  "request.inactive",
  "task.cancelled",
  "request.progress_inconsistent",
  "effect.checked_before_call",
  "outcome.checked_before_call",
  "outcome.weak_evidence",
]);

// Contract v1.2: an unseen layer's code is a path code, or the deciding reason of a chain that would have been
// healthy. The rollups count it only where it decides, and it is no path code for the path-code indexes (which skip
// deciding reasons), so a filter on it is a containment on `chains` and its total is counted there.
export const NOT_OBSERVED_CODES = new Set(["session.not_observed", "catalog.not_observed"]);

/**
 * Whether a query's total is better summed from the rollups than counted from `chains`: it filters on nothing the
 * rollups do not hold, and on a label, on two or more of state, server, tool and client, or on a reason (no single
 * `chains` index holds such a combination, so a count intersects ranges or scans, reading up to the cap in heap
 * rows; a label's GIN range is all heap rows). A path code as the reason, or an empty server or tool (the rollups
 * write a missing one as ''), stays on `chains`; so do labels with a reason (the label rollups have no reason), and
 * two labels or more without their label sets.
 */
export function totalFromRollups(query: RollupFilters & { session?: string; label: string[] }) {
  if (query.session || (query.label.length > 1 && !query.labelSets)) return false;
  if (query.server === "" || query.tool === "") return false;
  if (query.label.length > 0) return query.reason === undefined;
  if (query.reason !== undefined)
    return (
      query.reason !== "" && !PATH_REASON_CODES.has(query.reason) && !NOT_OBSERVED_CODES.has(query.reason)
    );
  const dimensions = [
    Boolean(query.state?.length),
    Boolean(query.server),
    Boolean(query.tool),
    Boolean(query.client),
  ];
  return dimensions.filter(Boolean).length >= 2;
}

type Parts = {
  rows_read_current: number;
  rows_read_shadowed: number;
  folded: number;
  net: number;
  rows_limit: number;
  edges: number;
};

/**
 * The number of chains matching `query`, exact up to `cap` and some number above it past that. Whole observed hours
 * are summed from `chain_rollups` (index-only on `chain_rollups_filters_idx`), or with a label from
 * `chain_label_rollups` (index-only on its key, which leads with the label), plus the deltas not folded yet; the
 * part of an hour at a `since` or `until` edge is counted from `chains` (at most an hour of rows each). The folded
 * rows are read up to a limit: every folded row read holds at least one chain and the deltas can take away at most
 * `removed` chains, so reading `cap + 1 + removed` rows proves the total is above the cap without reading further.
 * One statement, so the rollup, the deltas and the edges are one snapshot (a fold moves deltas atomically). The
 * edges only add chains, so they are not counted once the whole hours are past the cap (a label's edge is up to an
 * hour of heap rows).
 */
export async function countFromRollupsCapped(
  query: RollupFilters,
  /** The same filters as conditions on `chains c`, without the time range: for the edges. */
  chainWhere: Prisma.Sql[],
  cap: number,
): Promise<number> {
  const split = splitRange(query.since, query.until);
  const { rollup, keyOrder, rollupWhere, current, shadowedOnly, anyState } = rollupMatch(query, split);
  const readFolded = (state: Prisma.Sql | null) => Prisma.sql`
    select r.chains from ${rollup} r where ${rollupWhere("r", state)} and r.chains > 0 ${keyOrder}
    limit (select rows_limit from deltas)`;
  const edges = split.edges.map(
    (edge) => Prisma.sql`(select count(*)::int from (
        select 1 from chains c
        where ${and([...chainWhere, Prisma.sql`c.observed_at >= ${edge.from}`, edge.to])}
        limit ${cap + 1}) e)`,
  );
  const rows = await getPrisma().$queryRaw<Parts[]>`
    with deltas as (
      select coalesce(sum(d.chains), 0)::int as net,
        ${cap + 1} + coalesce(-sum(d.chains) filter (where d.chains < 0), 0)::int as rows_limit
      from chain_rollup_deltas d where ${split.wholeHours ? rollupWhere("d", anyState) : Prisma.sql`false`}
    ), folded_current as (
      ${split.wholeHours ? readFolded(current) : Prisma.sql`select 0 as chains where false`}
    ), folded_shadowed as (
      ${split.wholeHours && shadowedOnly ? readFolded(shadowedOnly) : Prisma.sql`select 0 as chains where false`}
    ), whole_hours as (
      select (select count(*) from folded_current)::int as rows_read_current,
        (select count(*) from folded_shadowed)::int as rows_read_shadowed,
        ((select coalesce(sum(chains), 0) from folded_current) +
          (select coalesce(sum(chains), 0) from folded_shadowed))::int as folded,
        net, rows_limit
      from deltas
    )
    select w.*, case when w.rows_read_current >= w.rows_limit or w.rows_read_shadowed >= w.rows_limit
        or w.folded + w.net > ${cap} then 0
      else (${edges.length ? Prisma.join(edges, " + ") : Prisma.sql`0`}) end::int as edges
    from whole_hours w`;
  const parts = rows[0];
  if (!parts) return 0;
  if (parts.rows_read_current >= parts.rows_limit || parts.rows_read_shadowed >= parts.rows_limit)
    return cap + 1;
  return parts.folded + parts.net + parts.edges;
}

/**
 * The rollup rows of a query's chains, as SQL: the rollup to read (`chain_label_rollups` for one label,
 * `chain_label_set_rollups` for more, else `chain_rollups`), conditions on its rows `r` or on the deltas `d` over
 * whole hours of `range`, and the state filter split in two ranges (current state; shadowed state under a shadowing
 * current state) for the folded rows, one condition for the deltas. `keyOrder`: a label rollup's key order, for a
 * read with a limit (with an estimate of many matches the planner preferred a parallel scan of the whole rollup to a
 * range of its key, and read every row when the matches were fewer).
 */
export function rollupMatch(query: RollupFilters, range: Range) {
  const labels = (query.label ?? []).map(labelPair);
  const labelSets = labels.length > 1 ? (query.labelSets ?? []) : null;
  const label = labels.length === 1 ? (labels[0] as { key: string; value: string }) : null;
  const tuple = tupleConditions(query);
  const states = query.state?.length ? Prisma.join(query.state) : null;
  const labelled = (alias: "r" | "d"): Prisma.Sql[] => {
    if (labels.length === 0) return [];
    if (alias === "d") {
      const all = Object.fromEntries(labels.map(({ key, value }) => [key, value]));
      return [Prisma.sql`d.labels @> ${JSON.stringify(all)}::jsonb`];
    }
    return label
      ? [Prisma.sql`r.label_key = ${label.key} and r.label_value = ${label.value}`]
      : [Prisma.sql`r.label_set = any(${labelSets}::bigint[])`];
  };
  const dimensions = "r.state, r.shadowed_state, r.server_name, r.tool, r.client_name, r.bucket";
  // Only a shadowing state can hide another: naming them puts the shadowed part on one range of the index per state.
  const shadowing = [...SHADOWING_STATES].filter((state) => !query.state?.includes(state));
  return {
    rollup: Prisma.raw(
      label ? "chain_label_rollups" : labelSets ? "chain_label_set_rollups" : "chain_rollups",
    ),
    keyOrder: label
      ? Prisma.raw(`order by r.label_key, r.label_value, ${dimensions}`)
      : labelSets
        ? Prisma.raw(`order by r.label_set, ${dimensions}`)
        : Prisma.empty,
    rollupWhere: (alias: "r" | "d", state: Prisma.Sql | null) =>
      and([
        ...labelled(alias),
        ...tuple(alias),
        ...(state ? [state] : []),
        ...bucketConditions(alias, range),
      ]),
    current: states ? Prisma.sql`r.state in (${states})` : null,
    shadowedOnly:
      states && shadowing.length > 0
        ? Prisma.sql`r.state in (${Prisma.join(shadowing)}) and r.shadowed_state in (${states})`
        : null,
    anyState: states ? Prisma.sql`(d.state in (${states}) or d.shadowed_state in (${states}))` : null,
  };
}

export type Range = {
  /** Whether any whole hour is summed from the rollups; its bounds, when there are any. */
  wholeHours: boolean;
  from: Date | null;
  to: Date | null;
  /** Parts of an hour counted from `chains`: observed_at ≥ from and `to` (a condition). */
  edges: { from: Date; to: Prisma.Sql }[];
};

/**
 * Splits [since, until] (both optional, until inclusive) into whole hours [from, to) and the edges around them. A
 * range within two hours has no whole hour worth reading: it is counted from `chains` whole.
 */
export function splitRange(since?: string, until?: string): Range {
  const sinceAt = since ? new Date(since) : null;
  const untilAt = until ? new Date(until) : null;
  const from = sinceAt ? new Date(hourCeil(sinceAt.getTime())) : null;
  const to = untilAt ? new Date(hourFloor(untilAt.getTime())) : null;
  if (sinceAt && untilAt && from && to && from.getTime() + HOUR_MS > to.getTime()) {
    return {
      wholeHours: false,
      from: null,
      to: null,
      edges: [{ from: sinceAt, to: Prisma.sql`c.observed_at <= ${untilAt}` }],
    };
  }
  const edges: Range["edges"] = [];
  if (sinceAt && from && sinceAt < from)
    edges.push({ from: sinceAt, to: Prisma.sql`c.observed_at < ${from}` });
  if (untilAt && to) edges.push({ from: to, to: Prisma.sql`c.observed_at <= ${untilAt}` });
  return { wholeHours: true, from, to, edges };
}

function bucketConditions(alias: "r" | "d", range: Range): Prisma.Sql[] {
  const bucket = Prisma.raw(`${alias}.bucket`);
  return [
    ...(range.from ? [Prisma.sql`${bucket} >= ${range.from}`] : []),
    ...(range.to ? [Prisma.sql`${bucket} < ${range.to}`] : []),
  ];
}

const tupleConditions =
  (query: RollupFilters) =>
  (alias: "r" | "d"): Prisma.Sql[] => {
    const column = (name: string) => Prisma.raw(`${alias}.${name}`);
    return [
      ...(query.server ? [Prisma.sql`${column("server_name")} = ${query.server}`] : []),
      ...(query.tool ? [Prisma.sql`${column("tool")} = ${query.tool}`] : []),
      ...(query.client ? [Prisma.sql`${column("client_name")} = ${query.client}`] : []),
      ...(query.reason ? [Prisma.sql`${column("reason")} = ${query.reason}`] : []),
    ];
  };

/** A `key:value` filter (split at the first colon, as the chain list's label filter is). */
export function labelPair(label: string): { key: string; value: string } {
  const split = label.indexOf(":");
  return { key: label.slice(0, split), value: label.slice(split + 1) };
}

const and = (conditions: Prisma.Sql[]) =>
  conditions.length === 0 ? Prisma.sql`true` : Prisma.join(conditions, " and ");
