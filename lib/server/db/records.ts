import type { ChainHead } from "@/lib/chains/transitions";
import type { Classification } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";
import { copyField, copyRow, copyTextArray } from "./copy-text";
import { prepared, type Sql, type TransactionSql } from "./sql";

/** What the records table stores of a validated, classified record. */
export type RecordToInsert = {
  record: HealthRecord;
  /** The record as received: stored as `json`, which keeps its text. */
  json: string;
  observedAtMs: number;
  classification: Classification;
};

/** A recordId of the batch is stored already: the caller runs the transaction again with "skipping stored". */
export const isRecordStoredAlready = (error: unknown) =>
  error instanceof Error &&
  (error as { code?: string }).code === "23505" &&
  (error as { constraint?: string }).constraint === "health_records_record_id_key";

/** The first try loads with COPY; the second, after a stored recordId was met, skips stored records. */
export type RecordLoad = "copy" | "skipping stored";

const RECORD_COLUMNS = `seq, record_id, chain_id, session_id, observed_at, body, state, layer, reasons, retry_safe,
  evidence, shadowed_state, shadowed_reason, next_check_at`;

// COPY returns nothing, so the seqs are drawn first, in the batch's order (as an INSERT would number its rows).
const DRAW_RECORD_SEQS = prepared(
  "receipt_draw_record_seqs",
  "select nextval('health_records_seq_seq') as seq from generate_series(1, $1::int) order by 1",
);

/**
 * Loads a batch's records with COPY: no statement to plan and no JSON document of rows to parse, which costs
 * PostgreSQL less CPU a record than an INSERT from JSON documents (and the app a little more). COPY cannot skip a stored
 * recordId, so the second try stages the same rows in a temporary table and inserts from there, skipping stored ones.
 * Returns the seq of each record stored.
 */
export async function insertRecords(
  sql: TransactionSql,
  items: RecordToInsert[],
  load: RecordLoad,
): Promise<Map<string, bigint>> {
  const seqs = (await sql.query<{ seq: bigint }>(DRAW_RECORD_SEQS, [items.length])).map((row) => row.seq);
  if (seqs.length !== items.length) throw new Error(`drew ${seqs.length} seqs for ${items.length} records`);
  const text = recordsAsCopyText(items, seqs);
  if (load === "copy") {
    await sql.copyIn(`copy health_records (${RECORD_COLUMNS}) from stdin`, text);
    return new Map(items.map((item, i) => [item.record.recordId, seqs[i] as bigint]));
  }
  await sql.execute(
    `create temporary table staged_records on commit drop as
      select ${RECORD_COLUMNS} from health_records with no data`,
  );
  await sql.copyIn(`copy staged_records (${RECORD_COLUMNS}) from stdin`, text);
  const inserted = await sql.query<{ record_id: string; seq: bigint }>(
    `insert into health_records (${RECORD_COLUMNS})
      select ${RECORD_COLUMNS} from staged_records order by seq
      on conflict (record_id) do nothing returning record_id, seq`,
  );
  return new Map(inserted.map((row) => [row.record_id, row.seq]));
}

function recordsAsCopyText(items: RecordToInsert[], seqs: bigint[]): string {
  return items
    .map(({ record, json, observedAtMs, classification: c }, i) =>
      copyRow([
        String(seqs[i]),
        copyField(record.recordId),
        copyField(record.chainId),
        copyField(record.session.id),
        new Date(observedAtMs).toISOString(),
        copyField(json),
        copyField(c.state),
        copyField(c.layer),
        copyTextArray(c.reasons),
        copyField(c.retrySafe),
        copyField(c.evidence),
        copyField(c.shadowed?.state),
        copyField(c.shadowed?.reason),
        copyField(c.nextCheckAt),
      ]),
    )
    .join("");
}

/** The stored bodies (as text) of these recordIds. */
export async function readStoredBodies(sql: Sql, recordIds: string[]): Promise<Map<string, string>> {
  if (recordIds.length === 0) return new Map();
  const stored = await sql.query<{ record_id: string; body: string }>(
    "select record_id, body::text as body from health_records where record_id = any($1::text[])",
    [recordIds],
  );
  return new Map(stored.map((row) => [row.record_id, row.body]));
}

export async function readChainHeads(sql: Sql, chainIds: string[]): Promise<Map<string, ChainHead>> {
  const rows = await sql.query<{
    chain_id: string;
    state: string;
    observed_at: Date;
    current_seq: bigint;
    record_count: number;
  }>(
    `select chain_id, state, observed_at, current_seq, record_count
      from chains where chain_id = any($1::text[])`,
    [chainIds],
  );
  return new Map(
    rows.map((row) => [
      row.chain_id,
      {
        chainId: row.chain_id,
        state: row.state,
        observedAtMs: row.observed_at.getTime(),
        currentSeq: row.current_seq,
        recordCount: row.record_count,
      },
    ]),
  );
}
