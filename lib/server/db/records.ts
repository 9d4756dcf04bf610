import type { Classification } from "@/lib/classifier";
import { applyRecordsToChain, type ChainHead, type StoredRecord } from "../ingest/chain-transitions";
import { type PreparedRecord, recordConflict, sameContent } from "../ingest/prepare-records";
import { classifyWithOperatorEffect } from "../ingest/operator-evidence";
import { lockChains, setRecordCounts, writeChainState } from "./chain-writes";
import { latestOperatorEffects } from "./operator-effects";
import { inTransaction, type Sql } from "./sql";

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
  const duplicates = await inTransaction(async (sql) => {
    await lockChains(
      sql,
      unique.map((item) => item.record.chainId),
    );
    const inserted = await insertNewRecords(sql, unique);
    const notInserted = unique.filter((item) => !inserted.has(item.record.recordId));
    await rejectConflicts(sql, notInserted);
    await advanceChains(sql, unique, inserted);
    return new Set(notInserted.map((item) => item.record.recordId));
  });
  const seen = new Set<string>();
  return batch.map((item) => {
    const { recordId, chainId } = item.record;
    const duplicate = duplicates.has(recordId) || seen.has(recordId);
    seen.add(recordId);
    return { recordId, chainId, duplicate, classification: item.classification };
  });
}

function dedupeWithinBatch(batch: PreparedRecord[]): PreparedRecord[] {
  const byId = new Map<string, PreparedRecord>();
  for (const item of batch) if (!byId.has(item.record.recordId)) byId.set(item.record.recordId, item);
  // One insertion order for every batch, so concurrent batches sharing recordIds wait instead of deadlocking.
  return [...byId.values()].sort((a, b) => (a.record.recordId < b.record.recordId ? -1 : 1));
}

const RECORD_COLUMNS = [
  "record_id",
  "chain_id",
  "session_id",
  "observed_at",
  "content_hash",
  "body",
  "state",
  "layer",
  "reasons",
  "retry_safe",
  "evidence",
  "shadowed_state",
  "shadowed_reason",
  "next_check_at",
] as const;

/**
 * One multi-row INSERT … VALUES whatever the batch size (14 parameters a record, far below PostgreSQL's 65,535);
 * returns the rows it inserted. Each body is bound as the JSON already serialised for its content hash, so it is
 * serialised once and parsed once (by the `json` column's input check), where reading the rows out of one JSON
 * document (json_to_recordset) parses it as a whole and then each body again. Under the ingestion bench this
 * statement's time fell from ~104 to ~83 µs a record; alone the two forms are within noise (docs/BENCHMARKS.md).
 */
async function insertNewRecords(sql: Sql, items: PreparedRecord[]): Promise<Map<string, bigint>> {
  const values: unknown[] = [];
  const tuples = items.map(({ record, json, contentHash, observedAtMs, classification: c }) => {
    const first = values.length + 1;
    values.push(
      record.recordId,
      record.chainId,
      record.session.id,
      new Date(observedAtMs).toISOString(),
      contentHash,
      json,
      c.state,
      c.layer,
      c.reasons,
      c.retrySafe ?? null,
      c.evidence ?? null,
      c.shadowed?.state ?? null,
      c.shadowed?.reason ?? null,
      c.nextCheckAt ?? null,
    );
    return `(${RECORD_COLUMNS.map((_, k) => `$${first + k}`).join(",")})`;
  });
  const inserted = await sql.query<{ record_id: string; seq: bigint }>(
    `insert into health_records (${RECORD_COLUMNS.join(", ")})
    values ${tuples.join(",")}
    on conflict (record_id) do nothing
    returning record_id, seq`,
    values,
  );
  return new Map(inserted.map((row) => [row.record_id, row.seq]));
}

async function rejectConflicts(sql: Sql, items: PreparedRecord[]): Promise<void> {
  if (items.length === 0) return;
  const stored = await sql.query<{ record_id: string; content_hash: string }>(
    "select record_id, content_hash from health_records where record_id = any($1::text[])",
    [items.map((item) => item.record.recordId)],
  );
  const hashes = new Map(stored.map((row) => [row.record_id, row.content_hash]));
  const differing = items.filter((item) => hashes.get(item.record.recordId) !== item.contentHash);
  if (differing.length === 0) return;
  // Same content with keys in another order is still the same record: compare the stored bodies themselves.
  const bodies = await sql.query<{ record_id: string; body: unknown }>(
    "select record_id, body from health_records where record_id = any($1::text[])",
    [differing.map((item) => item.record.recordId)],
  );
  const bodyOf = new Map(bodies.map((row) => [row.record_id, row.body]));
  const conflicting = differing.filter((item) => !sameContent(bodyOf.get(item.record.recordId), item.record));
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
  const operatorEffects = await latestOperatorEffects(sql, [...byChain.keys()]);
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
