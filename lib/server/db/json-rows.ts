/**
 * Rows for a multi-row statement, as one JSON parameter read back with `jsonb_to_recordset`. Through Prisma's
 * driver adapter this is about twice as fast as `unnest` over one array parameter per column (measured: 1,000
 * records with their JSON bodies, ~90 ms against ~190 ms), because the adapter converts every array element.
 */
export function jsonRows(rows: readonly object[]): string {
  return JSON.stringify(rows, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
}
