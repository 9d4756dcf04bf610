import type { ChainRow } from "@/lib/chains/transitions";
import type { Sql } from "./sql";

// Reads and writes of the one-off rebuild (`npm run reclassify`): stored OTLP sessions in key order, and chains with
// their current record and stored classification in id order, a page at a time.

/** Session keys of stored spans after `after`, in order, at most `limit`. */
export async function readSessionKeysAfter(sql: Sql, after: string, limit: number): Promise<string[]> {
  const rows = await sql.query<{ session_key: string }>(
    `select distinct session_key from otlp_spans where session_key > $1 order by session_key limit $2`,
    [after, limit],
  );
  return rows.map((row) => row.session_key);
}

/** Sets each span's role (lib/otlp/span-role.ts) to the one its span has now. */
export async function updateSpanRoles(
  sql: Sql,
  roles: readonly { traceId: string; spanId: string; role: string }[],
): Promise<number> {
  if (roles.length === 0) return 0;
  return sql.execute(
    `update otlp_spans s set role = r.role
       from unnest($1::text[], $2::text[], $3::text[]) as r(trace_id, span_id, role)
      where s.trace_id = r.trace_id and s.span_id = r.span_id and s.role <> r.role`,
    [roles.map((r) => r.traceId), roles.map((r) => r.spanId), roles.map((r) => r.role)],
  );
}

/** A chain as stored: its current record's body (text) and the classification its columns hold. */
export type StoredChainRow = Pick<
  ChainRow,
  | "chainId"
  | "currentSeq"
  | "currentRecordId"
  | "recordCount"
  | "evaluatedAt"
  | "state"
  | "layer"
  | "reasons"
  | "retrySafe"
  | "evidence"
  | "shadowedState"
  | "shadowedReason"
  | "nextCheckAt"
> & { bodyText: string };

/** Chains after `after` in id order, at most `limit`, with their current record; the caller holds their locks. */
export async function readChainsAfter(sql: Sql, after: string, limit: number): Promise<StoredChainRow[]> {
  return sql.query<StoredChainRow>(
    `select c.chain_id as "chainId", c.current_seq as "currentSeq", c.current_record_id as "currentRecordId",
        c.record_count as "recordCount", c.evaluated_at as "evaluatedAt", c.state, c.layer, c.reasons,
        c.retry_safe as "retrySafe", c.evidence, c.shadowed_state as "shadowedState",
        c.shadowed_reason as "shadowedReason", c.next_check_at as "nextCheckAt", r.body::text as "bodyText"
      from chains c join health_records r on r.seq = c.current_seq
      where c.chain_id > $1
      order by c.chain_id
      limit $2`,
    [after, limit],
  );
}
