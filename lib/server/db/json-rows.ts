/**
 * Rows for a multi-row statement, as one JSON parameter read back with `jsonb_to_recordset`: one parameter
 * whatever the batch size, and no per-element conversion of array parameters. Rows hold no bigint (pass it as a
 * string, which jsonb_to_recordset reads into a bigint column): a replacer function would be called for every value
 * of every record body and cost more than the statement.
 */
export function jsonRows(rows: readonly object[]): string {
  return JSON.stringify(rows);
}
