import { type OperatorEffect, storedOutcome } from "@/lib/chains/operator-evidence";
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

// Which record ids are stored already, and seqs for the batch (COPY returns nothing, so they are drawn first, in
// ascending order, as an INSERT would number its rows), in one round trip. A seq drawn for a record that turns out
// to be stored is left unused: a gap, as a rolled-back batch leaves.
// The ids are handed to the scan through a subquery, so the planner never sees them as constants: a connection's
// first five executions are planned with the parameters' values, and against a week's partition not analyzed yet
// (no statistics: each id guessed to match 0.5 % of its rows) a batch of 100–1000 ids looked like the whole
// partition, so it was read sequentially (0.2–0.5 s a batch at 100,000 records) and the plan took ~90 ms to make.
// The pool opens connections afresh after 10 s idle, so ingestion paid that again and again. Every plan is now the
// generic one: one index scan of each partition's (record_id, observed_at) key for all the ids.
export const READ_STORED_AND_DRAW_SEQS = prepared(
  "receipt_read_stored_and_draw_seqs",
  `select array(select record_id from health_records where record_id = any((select $1::text[])::text[])) as stored,
      array(select nextval('health_records_seq_seq') from generate_series(1, $2::int) order by 1)::text[] as seqs`,
);

/**
 * Loads a batch's new records with COPY: no statement to plan and no JSON document of rows to parse, which costs
 * PostgreSQL less CPU a record than an INSERT from JSON documents. The caller holds the batch's record-id locks
 * (lockChainsAndRecords), taken in an earlier statement so that this one's snapshot sees every record a
 * concurrent batch with the same ids committed: those stored already are left out, in every partition. Returns
 * the seq of each record stored.
 */
export async function insertRecords(
  sql: TransactionSql,
  items: RecordToInsert[],
  _load: RecordLoad,
): Promise<Map<string, bigint>> {
  const [row] = await sql.query<{ stored: string[]; seqs: string[] }>(READ_STORED_AND_DRAW_SEQS, [
    items.map((item) => item.record.recordId),
    items.length,
  ]);
  const stored = new Set(row?.stored);
  const fresh = stored.size === 0 ? items : items.filter((item) => !stored.has(item.record.recordId));
  if (fresh.length === 0) return new Map();
  const seqs = (row?.seqs ?? []).slice(0, fresh.length).map(BigInt);
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

/** The stored bodies' lookup: the ids through a subquery, as READ_STORED_AND_DRAW_SEQS has them, for its reason. */
export const READ_STORED_BODIES =
  "select record_id, body::text as body from health_records where record_id = any((select $1::text[])::text[])";

/** The stored bodies (as text) of these recordIds. */
export async function readStoredBodies(sql: Sql, recordIds: string[]): Promise<Map<string, string>> {
  if (recordIds.length === 0) return new Map();
  const stored = await sql.query<{ record_id: string; body: string }>(READ_STORED_BODIES, [recordIds]);
  return new Map(stored.map((row) => [row.record_id, row.body]));
}

/** A stored chain as a batch finds it under its lock, with its newest operator-recorded destination evidence. */
export type ChainHeadWithEffect = ChainHead & { operatorEffect: OperatorEffect | null };

/**
 * The heads of the stored chains among `chainIds`, each with its newest operator evidence, in one round trip (a
 * chain this batch creates has neither). Not prepared: a generic plan made while `chains` was nearly empty kept a
 * sequential scan once it had grown.
 */
export async function readChainHeads(
  sql: Sql,
  chainIds: string[],
): Promise<Map<string, ChainHeadWithEffect>> {
  const rows = await sql.query<{
    chain_id: string;
    state: string;
    observed_at: Date;
    current_seq: bigint;
    record_count: number;
    effect_status: OperatorEffect["status"] | null;
    effect_receipt: string | null;
    effect_checked_at: Date | null;
    outcome_verdict: string | null;
    outcome_verifier: string | null;
    outcome_receipt: string | null;
  }>(
    `select c.chain_id, c.state, c.observed_at, c.current_seq, c.record_count, e.status as effect_status,
        e.receipt as effect_receipt, e.checked_at as effect_checked_at, e.outcome_verdict, e.outcome_verifier,
        e.outcome_receipt
      from chains c
      left join lateral (
        select o.status, o.receipt, o.checked_at, o.outcome_verdict, o.outcome_verifier, o.outcome_receipt
          from operator_effects o
          where o.chain_id = c.chain_id order by o.checked_at desc, o.id desc limit 1
      ) e on true
      where c.chain_id = any($1::text[])`,
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
        operatorEffect:
          row.effect_status && row.effect_checked_at
            ? {
                status: row.effect_status,
                receipt: row.effect_receipt,
                checkedAt: row.effect_checked_at,
                outcome: storedOutcome(row.outcome_verdict, row.outcome_verifier, row.outcome_receipt),
              }
            : null,
      },
    ]),
  );
}
