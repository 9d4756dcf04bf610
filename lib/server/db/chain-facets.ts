import type { Facets } from "@/lib/dashboard/api-types";
import { getPrisma } from "./client";

const MAX_VALUES = 200;
// Label keys live inside JSON: read them from the newest chains only, so the filter form stays instant.
const LABEL_SAMPLE = 5000;

/**
 * Values the chain filters can suggest: servers, clients, tools and label keys seen in the data. Each column's
 * distinct values come from a loose index scan of its `(column, observed_at)` index — one probe for the next value
 * after the last, at most MAX_VALUES probes — so the cost follows the number of values, not of chains.
 */
export async function chainFacets(): Promise<Facets> {
  const prisma = getPrisma();
  const distinct = (column: "server_name" | "client_name" | "tool") =>
    prisma.$queryRawUnsafe<{ value: string }[]>(
      // column is one of three literals above, never input.
      `with recursive next_value(value, found) as (
        (select ${column}, 1 from chains where ${column} is not null order by ${column} limit 1)
        union all
        select (select ${column} from chains where ${column} > prior.value order by ${column} limit 1),
          prior.found + 1
        from next_value prior where prior.value is not null and prior.found < ${MAX_VALUES}
      )
      select value from next_value where value is not null`,
    );
  const [servers, clients, tools, labelKeys] = await Promise.all([
    distinct("server_name"),
    distinct("client_name"),
    distinct("tool"),
    prisma.$queryRaw<{ value: string }[]>`
      select distinct jsonb_object_keys(labels) as value
      from (select labels from chains order by observed_at desc limit ${LABEL_SAMPLE}) newest
      order by 1 limit ${MAX_VALUES}`,
  ]);
  const values = (rows: { value: string }[]) => rows.map((row) => row.value);
  return {
    servers: values(servers),
    clients: values(clients),
    tools: values(tools),
    labelKeys: values(labelKeys),
  };
}
