import type { HealthRecord } from "@/lib/contract";
import type { Prisma } from "@/lib/generated/prisma/client";
import { enqueueAlertEvents } from "../alerts/enqueue";
import type { ChainRow, StateChange } from "../ingest/chain-transitions";

type Tx = Prisma.TransactionClient;

/**
 * Serialises writers of the same chains (ingestion, the deadline worker, reconciliation) across transactions and
 * app instances. Locks are taken in sorted order so two batches sharing chains cannot deadlock.
 */
export async function lockChains(tx: Tx, chainIds: string[]): Promise<void> {
  const sorted = [...new Set(chainIds)].sort();
  await tx.$queryRaw`select count(pg_advisory_xact_lock(hashtextextended(c, 0)))::int as locked
    from (select unnest(${sorted}::text[]) as c order by 1) ordered`;
}

/**
 * The one way chain state is written: current rows, their history, and the alert events they cause, all in the
 * caller's transaction.
 */
export async function writeChainState(
  tx: Tx,
  rows: ChainRow[],
  changes: StateChange[],
  /** The rows' current records by seq, when the caller has them in memory (saves the alerts a read-back). */
  records?: ReadonlyMap<bigint, HealthRecord>,
): Promise<void> {
  await upsertChains(tx, rows);
  await appendStateChanges(tx, changes);
  await enqueueAlertEvents(tx, rows, changes, records);
}

/** Writes chain rows in one statement (unnest of column arrays), whatever the batch size. */
async function upsertChains(tx: Tx, rows: ChainRow[]): Promise<void> {
  if (rows.length === 0) return;
  const col = <K extends keyof ChainRow>(key: K) => rows.map((row) => row[key]);
  await tx.$executeRaw`
    insert into chains (chain_id, session_id, state, layer, reasons, retry_safe, evidence, shadowed_state,
      shadowed_reason, next_check_at, current_record_id, current_seq, observed_at, evaluated_at, server_name,
      server_version, client_name, client_version, transport, tool, labels, record_count, updated_at)
    select u.chain_id, u.session_id, u.state, u.layer, array(select jsonb_array_elements_text(u.reasons)),
      u.retry_safe, u.evidence, u.shadowed_state, u.shadowed_reason, u.next_check_at, u.current_record_id,
      u.current_seq, u.observed_at, u.evaluated_at, u.server_name, u.server_version, u.client_name,
      u.client_version, u.transport, u.tool, u.labels, u.record_count, now()
    from unnest(${col("chainId")}::text[], ${col("sessionId")}::text[], ${col("state")}::text[],
      ${col("layer")}::text[], ${rows.map((r) => JSON.stringify(r.reasons))}::jsonb[], ${col("retrySafe")}::boolean[],
      ${col("evidence")}::text[], ${col("shadowedState")}::text[], ${col("shadowedReason")}::text[],
      ${col("nextCheckAt")}::timestamptz[], ${col("currentRecordId")}::text[],
      ${rows.map((r) => r.currentSeq.toString())}::bigint[], ${col("observedAt")}::timestamptz[],
      ${col("evaluatedAt")}::timestamptz[], ${col("serverName")}::text[], ${col("serverVersion")}::text[],
      ${col("clientName")}::text[], ${col("clientVersion")}::text[], ${col("transport")}::text[],
      ${col("tool")}::text[], ${rows.map((r) => JSON.stringify(r.labels))}::jsonb[], ${col("recordCount")}::int[])
      as u(chain_id, session_id, state, layer, reasons, retry_safe, evidence, shadowed_state, shadowed_reason,
        next_check_at, current_record_id, current_seq, observed_at, evaluated_at, server_name, server_version,
        client_name, client_version, transport, tool, labels, record_count)
    on conflict (chain_id) do update set
      session_id = excluded.session_id, state = excluded.state, layer = excluded.layer, reasons = excluded.reasons,
      retry_safe = excluded.retry_safe, evidence = excluded.evidence, shadowed_state = excluded.shadowed_state,
      shadowed_reason = excluded.shadowed_reason, next_check_at = excluded.next_check_at,
      current_record_id = excluded.current_record_id, current_seq = excluded.current_seq,
      observed_at = excluded.observed_at, evaluated_at = excluded.evaluated_at, server_name = excluded.server_name,
      server_version = excluded.server_version, client_name = excluded.client_name,
      client_version = excluded.client_version, transport = excluded.transport, tool = excluded.tool,
      labels = excluded.labels, record_count = excluded.record_count, updated_at = now()`;
}

/** Only the record count moves when every new record of a chain is older than its current one. */
export async function setRecordCounts(
  tx: Tx,
  counts: { chainId: string; recordCount: number }[],
): Promise<void> {
  if (counts.length === 0) return;
  await tx.$executeRaw`update chains c set record_count = u.n, updated_at = now()
    from unnest(${counts.map((c) => c.chainId)}::text[], ${counts.map((c) => c.recordCount)}::int[]) as u(id, n)
    where c.chain_id = u.id`;
}

async function appendStateChanges(tx: Tx, changes: StateChange[]): Promise<void> {
  if (changes.length === 0) return;
  const col = <K extends keyof StateChange>(key: K) => changes.map((change) => change[key]);
  await tx.$executeRaw`insert into chain_state_changes (chain_id, from_state, to_state, reason, at, record_id, cause)
    select * from unnest(${col("chainId")}::text[], ${col("fromState")}::text[], ${col("toState")}::text[],
      ${col("reason")}::text[], ${col("at")}::timestamptz[], ${col("recordId")}::text[], ${col("cause")}::text[])`;
}
