import { Prisma } from "@/lib/generated/prisma/client";
import { labelSetOf } from "./chain-rollup-sql";
import { getPrisma } from "./client";

/** A chain's label set (labelSetOf), on `chains c`: the expression `chains_label_set_observed_at_idx` holds. */
export const LABEL_SET_OF_CHAIN = Prisma.raw(labelSetOf("c.labels"));

/**
 * Past this many distinct label sets the walk below stops and a filter stays a containment test on every row: each
 * set costs one probe of the index (a few µs), and so many sets that match would not make the read narrow anyway.
 */
export const LABEL_SETS_WALKED = 2_000;

/**
 * The label sets (as LABEL_SET_OF_CHAIN) of the chains whose labels hold every pair in `labels`, or `null` when
 * there are more than LABEL_SETS_WALKED sets. Walks the distinct sets on the index, one probe each (a loose index
 * scan: PostgreSQL has no skip-distinct), testing one chain's labels per set. Chains share few sets (env, team,
 * agent…), so two labels at once, which no rollup counts, become an index range per set instead of a containment
 * test on up to every row (78 ms for a capped total at 10 M chains).
 */
export async function readLabelSetsHolding(labels: Record<string, string>): Promise<string[] | null> {
  const rows = await getPrisma().$queryRaw<{ label_set: string; holds: boolean }[]>`
    with recursive label_sets as (
      (select ${LABEL_SET_OF_CHAIN} as label_set, c.labels from chains c order by 1 limit 1)
      union all
      select next.label_set, next.labels from label_sets s cross join lateral (
        select ${LABEL_SET_OF_CHAIN} as label_set, c.labels from chains c
        where ${LABEL_SET_OF_CHAIN} > s.label_set order by 1 limit 1) next
    )
    select label_set::text, labels @> ${JSON.stringify(labels)}::jsonb as holds
    from label_sets limit ${LABEL_SETS_WALKED + 1}`;
  if (rows.length > LABEL_SETS_WALKED) return null;
  return rows.filter((row) => row.holds).map((row) => row.label_set);
}
