/**
 * Rows for a multi-row statement, as one JSON parameter read back with `json_to_recordset`: one parameter
 * whatever the batch size, and no per-element conversion of array parameters. Rows hold no bigint (pass it as a
 * string, which json_to_recordset reads into a bigint column): a replacer function would be called for every value
 * of every record body and cost more than the statement. `json`, not `jsonb`: the document is read once, so
 * building jsonb's binary form first is wasted; measured alone on 333 chain rows, PostgreSQL spent ~16–21 µs a row
 * instead of ~24–35 (docs/BENCHMARKS.md).
 */
export function jsonRows(rows: readonly object[]): string {
  return JSON.stringify(rows);
}
