import type { ChainRow, StateChange } from "@/lib/chains/transitions";
import {
  appendRollupDeltasFrom,
  ROLLUP_KEY_COLUMNS,
  ROLLUP_KEY_OF_CHAIN,
  rollupKeyOf,
} from "./chain-rollup-sql";
import { isoTime, jsonRows } from "./json-rows";
import { lockKeys } from "./key-locks";
import { prepared, type Sql } from "./sql";

/**
 * Serialises writers of the same chains (ingestion, the deadline worker, reconciliation) across transactions and
 * app instances. Locks are taken in sorted order so two batches sharing chains cannot deadlock; past
 * MAX_EXACT_KEYS the family's lock stands for them all (lib/server/db/key-locks.ts).
 */
export async function lockChains(sql: Sql, chainIds: string[]): Promise<void> {
  await lockKeys(sql, "chains", [...new Set(chainIds)].sort());
}

/**
 * lockChains and the batch's record ids together, for ingestion. Record ids have a keyspace of their own beside the
 * chains' (`record:` and the id), so the same record id in a concurrent batch waits for this transaction whatever
 * its chain (records are partitioned by time: `record_id` alone has no unique index). Every writer takes chain
 * locks before record locks, each set in sorted order, so two batches cannot deadlock.
 */
export async function lockChainsAndRecords(sql: Sql, chainIds: string[], recordIds: string[]): Promise<void> {
  const chains = [...new Set(chainIds)].sort();
  const records = [...new Set(recordIds)].sort().map((id) => `record:${id}`);
  await lockKeys(sql, "chains", [...chains, ...records]);
}

/** Current chain rows and their state history, in the caller's transaction (commitChainState adds the alerts). */
export async function writeChainState(sql: Sql, rows: ChainRow[], changes: StateChange[]): Promise<void> {
  await upsertChains(sql, rows);
  await appendStateChanges(sql, changes);
}

// The rows written and the grouped rollup deltas in one statement (lib/server/db/chain-rollups.ts): each row's key
// after (+1) and, for a chain that was stored, before (−1), both from RETURNING (`old` is PostgreSQL 18's row as it
// was replaced, null for an insert). Reading the old keys with a join on `chains` instead costs a second lookup a
// chain, and the planner, estimating the JSON rows, chose to hash the whole table for it.
const OLD_KEY_COLUMNS = ROLLUP_KEY_COLUMNS.split(", ")
  .map((column) => `old_${column}`)
  .join(", ");

const UPSERT_CHAINS = prepared(
  "receipt_upsert_chains",
  `with u as (
      select * from json_to_recordset($1::json) as u(chain_id text, session_id text, state text, layer text,
        reasons text[], retry_safe boolean, evidence text, shadowed_state text, shadowed_reason text,
        next_check_at timestamptz, current_record_id text, current_seq bigint, observed_at timestamptz,
        evaluated_at timestamptz, server_name text, server_version text, client_name text, client_version text,
        transport text, tool text, labels jsonb, record_count int, request_id text, operation_key text)
    ), written as (
      insert into chains as c (chain_id, session_id, state, layer, reasons, retry_safe, evidence, shadowed_state,
        shadowed_reason, next_check_at, current_record_id, current_seq, observed_at, evaluated_at, server_name,
        server_version, client_name, client_version, transport, tool, labels, record_count, request_id,
        operation_key, updated_at)
      select u.*, now() from u
      on conflict (chain_id) do update set
        session_id = excluded.session_id, state = excluded.state, layer = excluded.layer,
        reasons = excluded.reasons, retry_safe = excluded.retry_safe, evidence = excluded.evidence,
        shadowed_state = excluded.shadowed_state, shadowed_reason = excluded.shadowed_reason,
        next_check_at = excluded.next_check_at, current_record_id = excluded.current_record_id,
        current_seq = excluded.current_seq, observed_at = excluded.observed_at,
        evaluated_at = excluded.evaluated_at, server_name = excluded.server_name,
        server_version = excluded.server_version, client_name = excluded.client_name,
        client_version = excluded.client_version, transport = excluded.transport, tool = excluded.tool,
        labels = excluded.labels, record_count = excluded.record_count, request_id = excluded.request_id,
        operation_key = excluded.operation_key, updated_at = now()
      returning ${rollupKeyOf("new")}, new.labels, new.observed_at, new.updated_at as written_at,
        ${rollupKeyOf("old", "old_")}, old.labels as old_labels
    ), changes as (
      select ${ROLLUP_KEY_COLUMNS}, labels, 1 as chains, observed_at, written_at from written
      union all
      select ${OLD_KEY_COLUMNS}, old_labels, -1, null, null from written where old_state is not null
    )
    ${appendRollupDeltasFrom("changes")}`,
);

/** Writes chain rows in one statement, whatever the batch size. */
async function upsertChains(sql: Sql, rows: ChainRow[]): Promise<void> {
  if (rows.length === 0) return;
  const json = rows.map((r) => ({
    chain_id: r.chainId,
    session_id: r.sessionId,
    state: r.state,
    layer: r.layer,
    reasons: r.reasons,
    retry_safe: r.retrySafe,
    evidence: r.evidence,
    shadowed_state: r.shadowedState,
    shadowed_reason: r.shadowedReason,
    next_check_at: isoTime(r.nextCheckAt),
    current_record_id: r.currentRecordId,
    current_seq: String(r.currentSeq),
    observed_at: isoTime(r.observedAt),
    evaluated_at: isoTime(r.evaluatedAt),
    server_name: r.serverName,
    server_version: r.serverVersion,
    client_name: r.clientName,
    client_version: r.clientVersion,
    transport: r.transport,
    tool: r.tool,
    labels: r.labels,
    record_count: r.recordCount,
    request_id: r.requestId,
    operation_key: r.operationKey,
  }));
  await sql.execute(UPSERT_CHAINS, [jsonRows(json)]);
}

/**
 * Only the record count moves when every new record of a chain is older than its current one. The rollups keep
 * the write's time only (a delta of 0 chains): the problems page reads when a tuple was last written.
 */
export async function setRecordCounts(
  sql: Sql,
  counts: { chainId: string; recordCount: number }[],
): Promise<void> {
  if (counts.length === 0) return;
  await sql.execute(
    `with touched as (
        update chains c set record_count = u.n, updated_at = now()
        from unnest($1::text[], $2::int[]) as u(id, n)
        where c.chain_id = u.id
        returning ${ROLLUP_KEY_OF_CHAIN}, '{}'::jsonb as labels, 0 as chains, null::timestamptz as observed_at,
          c.updated_at as written_at
      )
      ${appendRollupDeltasFrom("touched")}`,
    [counts.map((c) => c.chainId), counts.map((c) => c.recordCount)],
  );
}

const APPEND_STATE_CHANGES = prepared(
  "receipt_append_state_changes",
  `insert into chain_state_changes (chain_id, from_state, to_state, reason, at, record_id, cause)
      select * from json_to_recordset($1::json) as u(chain_id text, from_state text, to_state text,
        reason text, at timestamptz, record_id text, cause text)`,
);

async function appendStateChanges(sql: Sql, changes: StateChange[]): Promise<void> {
  if (changes.length === 0) return;
  const json = changes.map((c) => ({
    chain_id: c.chainId,
    from_state: c.fromState,
    to_state: c.toState,
    reason: c.reason,
    at: isoTime(c.at),
    record_id: c.recordId,
    cause: c.cause,
  }));
  await sql.execute(APPEND_STATE_CHANGES, [jsonRows(json)]);
}
