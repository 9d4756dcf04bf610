import type { Classification } from "@/lib/classifier";
import { applyRecordsToChain, type ChainHead, type StoredRecord } from "../ingest/chain-transitions";
import { type PreparedRecord, recordConflict, sameContent } from "../ingest/prepare-records";
import { classifyWithOperatorEffect } from "../ingest/operator-evidence";
import { lockChains, setRecordCounts, writeChainState } from "./chain-writes";
import { latestOperatorEffects } from "./operator-effects";
import { copyField, copyRow, copyTextArray } from "./copy-text";
import { inTransaction, prepared, type Sql, type TransactionSql } from "./sql";

export type SavedRecord = {
  recordId: string;
  chainId: string;
  duplicate: boolean;
  classification: Classification;
};

/**
 * Stores a validated batch atomically: new records, the chains they move and their state history, in one
 * transaction. A recordId already stored with the same content is a duplicate (not stored again); with other
 * content the whole batch is refused with 409 and nothing is written.
 */
export async function saveRecords(batch: PreparedRecord[]): Promise<SavedRecord[]> {
  const unique = dedupeWithinBatch(batch);
  let duplicates: Set<string>;
  try {
    duplicates = await storeBatch(unique, "copy");
  } catch (error) {
    if (!isRecordStoredAlready(error)) throw error;
    // Some recordId of the batch is stored already (a re-sent batch, or an identical one that committed first): the
    // whole transaction runs again, now setting stored records aside. The first try is a plain COPY because it is
    // the cheapest load PostgreSQL has, and COPY cannot skip conflicts; re-sent batches are the exception.
    duplicates = await storeBatch(unique, "skipping stored");
  }
  const seen = new Set<string>();
  return batch.map((item) => {
    const { recordId, chainId } = item.record;
    const duplicate = duplicates.has(recordId) || seen.has(recordId);
    seen.add(recordId);
    return { recordId, chainId, duplicate, classification: item.classification };
  });
}

/** Returns the recordIds that were stored before (duplicates). */
function storeBatch(items: PreparedRecord[], load: RecordLoad): Promise<Set<string>> {
  return inTransaction(async (sql) => {
    await lockChains(
      sql,
      items.map((item) => item.record.chainId),
    );
    const inserted = await loadRecords(sql, items, load);
    const notInserted = items.filter((item) => !inserted.has(item.record.recordId));
    await rejectConflicts(sql, notInserted);
    await advanceChains(sql, items, inserted);
    return new Set(notInserted.map((item) => item.record.recordId));
  });
}

const isRecordStoredAlready = (error: unknown) =>
  error instanceof Error &&
  (error as { code?: string }).code === "23505" &&
  (error as { constraint?: string }).constraint === "health_records_record_id_key";

function dedupeWithinBatch(batch: PreparedRecord[]): PreparedRecord[] {
  const byId = new Map<string, PreparedRecord>();
  for (const item of batch) if (!byId.has(item.record.recordId)) byId.set(item.record.recordId, item);
  // One insertion order for every batch, so concurrent batches sharing recordIds wait instead of deadlocking.
  return [...byId.values()].sort((a, b) => (a.record.recordId < b.record.recordId ? -1 : 1));
}

/** The first try loads with COPY; the second, after a stored recordId was met, skips stored records. */
type RecordLoad = "copy" | "skipping stored";

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
async function loadRecords(
  sql: TransactionSql,
  items: PreparedRecord[],
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

function recordsAsCopyText(items: PreparedRecord[], seqs: bigint[]): string {
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

/**
 * Records whose recordId was stored already are duplicates when their content is the same. A body is stored as
 * `json`, which keeps its text as given, so a re-sent record is the same text; any other text is compared as JSON,
 * ignoring key order, before the batch is refused.
 */
async function rejectConflicts(sql: Sql, items: PreparedRecord[]): Promise<void> {
  if (items.length === 0) return;
  const stored = await sql.query<{ record_id: string; body: string }>(
    "select record_id, body::text as body from health_records where record_id = any($1::text[])",
    [items.map((item) => item.record.recordId)],
  );
  const bodyOf = new Map(stored.map((row) => [row.record_id, row.body]));
  const conflicting = items.filter((item) => {
    const body = bodyOf.get(item.record.recordId);
    return body !== item.json && (body === undefined || !sameContent(JSON.parse(body), item.record));
  });
  if (conflicting.length > 0) {
    throw recordConflict(
      conflicting.map((item) => item.record.recordId),
      conflicting.map((item) => item.index),
    );
  }
}

async function advanceChains(sql: Sql, items: PreparedRecord[], inserted: Map<string, bigint>) {
  const byChain = new Map<string, StoredRecord[]>();
  for (const item of items) {
    const seq = inserted.get(item.record.recordId);
    if (seq === undefined) continue;
    const list = byChain.get(item.record.chainId) ?? [];
    list.push({
      seq,
      index: item.index,
      record: item.record,
      observedAtMs: item.observedAtMs,
      classification: item.classification,
    });
    byChain.set(item.record.chainId, list);
  }
  if (byChain.size === 0) return;
  const heads = await readChainHeads(sql, [...byChain.keys()]);
  // Operator evidence is recorded on a stored chain, under its lock: a chain this batch creates has none.
  const operatorEffects = await latestOperatorEffects(sql, [...heads.keys()]);
  const rows = [];
  const counts = [];
  const changes = [];
  for (const [chainId, records] of byChain) {
    const effect = operatorEffects.get(chainId);
    if (effect) {
      for (const stored of records) {
        stored.classification = classifyWithOperatorEffect(stored.record, stored.classification, effect);
      }
    }
    const result = applyRecordsToChain(heads.get(chainId) ?? null, records);
    if (result.row) rows.push(result.row);
    else counts.push({ chainId, recordCount: result.recordCount });
    changes.push(...result.changes);
  }
  const bySeq = new Map([...byChain.values()].flat().map((stored) => [stored.seq, stored.record]));
  const newChains = new Set([...byChain.keys()].filter((chainId) => !heads.has(chainId)));
  await writeChainState(sql, rows, changes, bySeq, newChains);
  await setRecordCounts(sql, counts);
}

async function readChainHeads(sql: Sql, chainIds: string[]): Promise<Map<string, ChainHead>> {
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
