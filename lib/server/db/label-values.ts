import { getPrisma } from "./client";

// Label values live inside JSON with no index on a key's values: read them from the newest chains, like the facets'
// label keys, so a suggestion costs one bounded read however many chains there are.
const LABEL_SAMPLE = 5000;
const MAX_VALUES = 50;

/** Up to MAX_VALUES distinct values of one label key among the newest chains, those starting with `prefix` first. */
export async function listLabelValues(key: string, prefix: string): Promise<string[]> {
  const rows = await getPrisma().$queryRaw<{ value: string }[]>`
    select value from (
      select distinct newest.labels ->> ${key} as value
      from (select labels from chains order by observed_at desc limit ${LABEL_SAMPLE}) newest
      where newest.labels ? ${key}
    ) v
    where strpos(lower(value), lower(${prefix})) > 0
    order by starts_with(lower(value), lower(${prefix})) desc, value
    limit ${MAX_VALUES}`;
  return rows.map((row) => row.value);
}
