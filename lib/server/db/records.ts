import type { Classification } from "@/lib/classifier";
import type { Prisma } from "@/lib/generated/prisma/client";
import { applyRecordsToChain, type ChainHead, type StoredRecord } from "../ingest/chain-transitions";
import { type PreparedRecord, recordConflict, sameContent } from "../ingest/prepare-records";
import { classifyWithOperatorEffect } from "../ingest/operator-evidence";
import { lockChains, setRecordCounts, writeChainState } from "./chain-writes";
import { getPrisma } from "./client";
import { jsonRows } from "./json-rows";
import { latestOperatorEffects } from "./operator-effects";

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
  const duplicates = await getPrisma().$transaction(
    async (tx) => {
      await lockChains(
        tx,
        unique.map((item) => item.record.chainId),
      );
      const inserted = await insertNewRecords(tx, unique);
      const notInserted = unique.filter((item) => !inserted.has(item.record.recordId));
      await rejectConflicts(tx, notInserted);
      await advanceChains(tx, unique, inserted);
      return new Set(notInserted.map((item) => item.record.recordId));
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
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

/** One multi-row statement whatever the batch size; returns the rows it inserted. */
async function insertNewRecords(
  tx: Prisma.TransactionClient,
  items: PreparedRecord[],
): Promise<Map<string, bigint>> {
  const rows = items.map(({ record, contentHash, observedAtMs, classification: c }) => ({
    record_id: record.recordId,
    chain_id: record.chainId,
    session_id: record.session.id,
    observed_at: new Date(observedAtMs),
    content_hash: contentHash,
    body: record,
    state: c.state,
    layer: c.layer,
    reasons: c.reasons,
    retry_safe: c.retrySafe ?? null,
    evidence: c.evidence ?? null,
    shadowed_state: c.shadowed?.state ?? null,
    shadowed_reason: c.shadowed?.reason ?? null,
    next_check_at: c.nextCheckAt ?? null,
  }));
  const inserted = await tx.$queryRaw<{ record_id: string; seq: bigint }[]>`
    insert into health_records (record_id, chain_id, session_id, observed_at, content_hash, body, state, layer,
      reasons, retry_safe, evidence, shadowed_state, shadowed_reason, next_check_at)
    select * from jsonb_to_recordset(${jsonRows(rows)}::jsonb) as u(record_id text, chain_id text, session_id text,
      observed_at timestamptz, content_hash text, body jsonb, state text, layer text, reasons text[],
      retry_safe boolean, evidence text, shadowed_state text, shadowed_reason text, next_check_at timestamptz)
    on conflict (record_id) do nothing
    returning record_id, seq`;
  return new Map(inserted.map((row) => [row.record_id, BigInt(row.seq)]));
}

async function rejectConflicts(tx: Prisma.TransactionClient, items: PreparedRecord[]): Promise<void> {
  if (items.length === 0) return;
  const stored = await tx.healthRecord.findMany({
    where: { recordId: { in: items.map((item) => item.record.recordId) } },
    select: { recordId: true, contentHash: true },
  });
  const hashes = new Map(stored.map((row) => [row.recordId, row.contentHash]));
  const differing = items.filter((item) => hashes.get(item.record.recordId) !== item.contentHash);
  if (differing.length === 0) return;
  // Same content with keys in another order is still the same record: compare the stored bodies themselves.
  const bodies = await tx.healthRecord.findMany({
    where: { recordId: { in: differing.map((item) => item.record.recordId) } },
    select: { recordId: true, body: true },
  });
  const bodyOf = new Map(bodies.map((row) => [row.recordId, row.body]));
  const conflicting = differing.filter((item) => !sameContent(bodyOf.get(item.record.recordId), item.record));
  if (conflicting.length > 0) {
    throw recordConflict(
      conflicting.map((item) => item.record.recordId),
      conflicting.map((item) => item.index),
    );
  }
}

async function advanceChains(
  tx: Prisma.TransactionClient,
  items: PreparedRecord[],
  inserted: Map<string, bigint>,
) {
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
  const heads = await readChainHeads(tx, [...byChain.keys()]);
  const operatorEffects = await latestOperatorEffects(tx, [...byChain.keys()]);
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
  await writeChainState(tx, rows, changes, bySeq);
  await setRecordCounts(tx, counts);
}

async function readChainHeads(
  tx: Prisma.TransactionClient,
  chainIds: string[],
): Promise<Map<string, ChainHead>> {
  const rows = await tx.chain.findMany({
    where: { chainId: { in: chainIds } },
    select: { chainId: true, state: true, observedAt: true, currentSeq: true, recordCount: true },
  });
  return new Map(
    rows.map((row) => [
      row.chainId,
      {
        chainId: row.chainId,
        state: row.state,
        observedAtMs: row.observedAt.getTime(),
        currentSeq: row.currentSeq,
        recordCount: row.recordCount,
      },
    ]),
  );
}
