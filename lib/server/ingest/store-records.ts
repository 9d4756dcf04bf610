import { applyRecordsToChain, type StoredRecord } from "@/lib/chains/transitions";
import { classifyWithOperatorEffect } from "@/lib/chains/operator-evidence";
import type { Classification } from "@/lib/classifier";
import { lockChainsAndRecords, setRecordCounts } from "../db/chain-writes";
import {
  insertRecords,
  isRecordStoredAlready,
  type RecordLoad,
  readChainHeads,
  readStoredBodies,
} from "../db/records";
import { inTransaction, type Sql, type TransactionSql } from "../db/sql";
import { commitChainState } from "../chains/commit-chain-state";
import { type PreparedRecord, recordConflict, sameContent } from "./prepare-records";

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
    // A unique key met a stored record: insertRecords leaves stored record ids out under their locks, so this is
    // a safety net, and the whole transaction runs again setting stored records aside.
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
  return inTransaction((sql) => storeRecordsIn(sql, items, load));
}

/**
 * The batch's writes inside the caller's transaction (`saveRecords`, and OTLP ingestion, which stores its spans in
 * the same one): chain locks, records, conflicts (409), chain state, history and alerts. `items` come from
 * `dedupeWithinBatch`. Returns the recordIds that were stored before (duplicates).
 */
export async function storeRecordsIn(
  sql: TransactionSql,
  items: PreparedRecord[],
  load: RecordLoad,
): Promise<Set<string>> {
  await lockChainsAndRecords(
    sql,
    items.map((item) => item.record.chainId),
    items.map((item) => item.record.recordId),
  );
  const inserted = await insertRecords(sql, items, load);
  const notInserted = items.filter((item) => !inserted.has(item.record.recordId));
  await rejectConflicts(sql, notInserted);
  await advanceChains(sql, items, inserted);
  return new Set(notInserted.map((item) => item.record.recordId));
}

export function dedupeWithinBatch(batch: PreparedRecord[]): PreparedRecord[] {
  const byId = new Map<string, PreparedRecord>();
  for (const item of batch) if (!byId.has(item.record.recordId)) byId.set(item.record.recordId, item);
  // One insertion order for every batch, so concurrent batches sharing recordIds wait instead of deadlocking.
  return [...byId.values()].sort((a, b) => (a.record.recordId < b.record.recordId ? -1 : 1));
}

/**
 * Records whose recordId was stored already are duplicates when their content is the same. A body is stored as
 * `json`, which keeps its text as given, so a re-sent record is the same text; any other text is compared as JSON,
 * ignoring key order, before the batch is refused.
 */
async function rejectConflicts(sql: Sql, items: PreparedRecord[]): Promise<void> {
  if (items.length === 0) return;
  const bodyOf = await readStoredBodies(
    sql,
    items.map((item) => item.record.recordId),
  );
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
  // Operator evidence is recorded on a stored chain, under its lock: a chain this batch creates has none.
  const heads = await readChainHeads(sql, [...byChain.keys()]);
  const rows = [];
  const counts = [];
  const changes = [];
  for (const [chainId, records] of byChain) {
    const effect = heads.get(chainId)?.operatorEffect;
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
  await commitChainState(sql, rows, changes, bySeq, newChains);
  await setRecordCounts(sql, counts);
}
