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

/**
 * A unique key of the records met a stored row. Ingestion checks record ids under their locks before it loads
 * (insertRecords), so this is a safety net: the caller runs the transaction again with "skipping stored". A
 * partition's own index reports the violation, so its name is matched by its end.
 */
export const isRecordStoredAlready = (error: unknown) =>
  error instanceof Error &&
  (error as { code?: string }).code === "23505" &&
  /record_id_observed_at_key$/.test((error as { constraint?: string }).constraint ?? "");

/** The first try of a batch and the try after a unique violation: both load with COPY what is not stored yet. */
export type RecordLoad = "copy" | "skipping stored";

/** The columns of a record's COPY row (`recordCopyRow`), in its order; the bulk seed loads the same rows. */
export const RECORD_COLUMNS = `seq, record_id, chain_id, session_id, observed_at, body, state, layer, reasons, retry_safe,
  evidence, shadowed_state, shadowed_reason, next_check_at`;

// COPY returns nothing, so the seqs are drawn first, in the batch's order (as an INSERT would number its rows).
const DRAW_RECORD_SEQS = prepared(
  "receipt_draw_record_seqs",
  "select nextval('health_records_seq_seq') as seq from generate_series(1, $1::int) order by 1",
);

// Record ids in a keyspace of their own beside the chain locks (lockChains hashes the bare chain id), in sorted
// order so two batches sharing record ids wait for each other instead of deadlocking.
const LOCK_RECORD_IDS = prepared(
  "receipt_lock_record_ids",
  `select count(pg_advisory_xact_lock(hashtextextended('record:' || r, 0)))::int as locked
      from (select unnest($1::text[]) as r order by 1) ordered`,
);

const READ_STORED_RECORD_IDS = prepared(
  "receipt_read_stored_record_ids",
  "select record_id from health_records where record_id = any($1::text[])",
);

/**
 * Loads a batch's new records with COPY: no statement to plan and no JSON document of rows to parse, which costs
 * PostgreSQL less CPU a record than an INSERT from JSON documents. Records are partitioned by `observed_at`, so
 * `record_id` alone has no unique index: the batch's record ids are locked (the same id in a concurrent batch,
 * whatever its chain or time, waits for this transaction) and those stored already are left out, in every
 * partition. Returns the seq of each record stored.
 */
export async function insertRecords(
  sql: TransactionSql,
  items: RecordToInsert[],
  _load: RecordLoad,
): Promise<Map<string, bigint>> {
  const recordIds = items.map((item) => item.record.recordId);
  await sql.query(LOCK_RECORD_IDS, [[...new Set(recordIds)].sort()]);
  const stored = new Set(
    (await sql.query<{ record_id: string }>(READ_STORED_RECORD_IDS, [recordIds])).map((row) => row.record_id),
  );
  const fresh = items.filter((item) => !stored.has(item.record.recordId));
  if (fresh.length === 0) return new Map();
  const seqs = (await sql.query<{ seq: bigint }>(DRAW_RECORD_SEQS, [fresh.length])).map((row) => row.seq);
  if (seqs.length !== fresh.length) throw new Error(`drew ${seqs.length} seqs for ${fresh.length} records`);
  await sql.copyIn(`copy health_records (${RECORD_COLUMNS}) from stdin`, recordsAsCopyText(fresh, seqs));
  return new Map(fresh.map((item, i) => [item.record.recordId, seqs[i] as bigint]));
}

function recordsAsCopyText(items: RecordToInsert[], seqs: bigint[]): string {
  return items.map((item, i) => recordCopyRow(item, seqs[i] as bigint)).join("");
}

/** One record as a line of COPY text, in RECORD_COLUMNS' order. */
export function recordCopyRow(
  { record, json, observedAtMs, classification: c }: RecordToInsert,
  seq: bigint | number,
): string {
  return copyRow([
    String(seq),
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
  ]);
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
