/**
 * Rows for a multi-row statement, as one JSON parameter read back with `json_to_recordset`: one parameter
 * whatever the batch size, and no per-element conversion of array parameters. Rows hold no bigint (pass it as a
 * string, which json_to_recordset reads into a bigint column): a replacer function would be called for every value
 * of every record body and cost more than the statement. `json`, not `jsonb`: the document is read once, so
 * building jsonb's binary form first is wasted work. Times go in as ISO strings (`isoTime`): a Date's `toJSON` takes
 * JSON.stringify off its fast path for the whole row.
 */
export function jsonRows(rows: readonly object[]): string {
  return JSON.stringify(rows);
}

/** A time as jsonRows wants it: an ISO string, which json_to_recordset reads into a timestamptz column. */
export function isoTime(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}
