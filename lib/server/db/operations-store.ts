import type { GuardDecision } from "@/lib/operations/decision";
import type { AttemptFacts, LeaseFacts, LeaseSettlement, OperationStatus } from "@/lib/operations/status";
import { prepared, type Sql } from "./sql";

export type OperationRow = {
  tool: string;
  server: string | null;
  lease: LeaseFacts | null;
};

export type OperationSqlRow = {
  tool: string;
  server: string | null;
  lease_holder: string | null;
  lease_granted_at: Date | null;
  lease_until: Date | null;
  lease_effect: "committed" | "absent" | null;
  lease_effect_receipt: string | null;
  lease_effect_by: string | null;
  lease_effect_at: Date | null;
};

const OPERATION_COLUMNS = `tool, server, lease_holder, lease_granted_at, lease_until,
  lease_effect, lease_effect_receipt, lease_effect_by, lease_effect_at`;

export const toOperation = (row: OperationSqlRow): OperationRow => ({
  tool: row.tool,
  server: row.server,
  lease:
    row.lease_holder && row.lease_granted_at && row.lease_until
      ? {
          holder: row.lease_holder,
          grantedAt: row.lease_granted_at,
          until: row.lease_until,
          settled:
            row.lease_effect && row.lease_effect_at
              ? {
                  effect: row.lease_effect,
                  receipt: row.lease_effect_receipt,
                  by: row.lease_effect_by ?? "",
                  at: row.lease_effect_at,
                }
              : null,
        }
      : null,
});

/**
 * Creates the operation's row if it has none, then locks it until the transaction ends: racing guard callers on one
 * key queue here, so each reads the lease the one before it wrote. Returns the row as it was before this call.
 */
export async function lockOperation(
  sql: Sql,
  key: string,
  binding: { tool: string; server: string | null },
): Promise<OperationRow & { created: boolean }> {
  const inserted = await sql.execute(
    `insert into operations (operation_key, tool, server) values ($1, $2, $3) on conflict do nothing`,
    [key, binding.tool, binding.server],
  );
  const rows = await sql.query<OperationSqlRow>(
    `select ${OPERATION_COLUMNS} from operations where operation_key = $1 for update`,
    [key],
  );
  return { ...toOperation(rows[0] as OperationSqlRow), created: inserted === 1 };
}

export async function readOperation(sql: Sql, key: string): Promise<OperationRow | null> {
  const rows = await sql.query<OperationSqlRow>(
    `select ${OPERATION_COLUMNS} from operations where operation_key = $1`,
    [key],
  );
  return rows[0] ? toOperation(rows[0]) : null;
}

/** An attempt's columns; its times are text when they come through json_build_object (operations-guard-store.ts). */
export type AttemptSqlRow = {
  chain_id: string;
  state: string;
  reasons: string[];
  retry_safe: boolean | null;
  shadowed_state: string | null;
  tool: string | null;
  server_name: string | null;
  observed_at: Date | string;
  first_seen_at: Date | string;
};

export const toAttempt = (row: AttemptSqlRow): AttemptFacts => ({
  chainId: row.chain_id,
  state: row.state,
  reasons: row.reasons,
  retrySafe: row.retry_safe,
  shadowedState: row.shadowed_state,
  tool: row.tool,
  serverName: row.server_name,
  observedAt: new Date(row.observed_at),
  firstSeenAt: new Date(row.first_seen_at),
});

/** The chains whose current record carries the key, oldest first (chains_operation_key_observed_at_idx). */
export async function readOperationAttempts(sql: Sql, key: string): Promise<AttemptFacts[]> {
  const rows = await sql.query<AttemptSqlRow>(
    `select chain_id, state, reasons, retry_safe, shadowed_state, tool, server_name, observed_at, first_seen_at
      from chains where operation_key = $1 order by observed_at, chain_id`,
    [key],
  );
  return rows.map(toAttempt);
}

/** Grants the lease from the database's clock, so consumption compares like with like (chains.first_seen_at). */
export async function grantLease(
  sql: Sql,
  key: string,
  holder: string,
  leaseMs: number,
): Promise<LeaseFacts> {
  const rows = await sql.query<{ lease_granted_at: Date; lease_until: Date }>(
    `update operations set lease_holder = $2, lease_granted_at = now(),
        lease_until = now() + make_interval(secs => $3::double precision / 1000),
        lease_effect = null, lease_effect_receipt = null, lease_effect_by = null, lease_effect_at = null
      where operation_key = $1 returning lease_granted_at, lease_until`,
    [key, holder, leaseMs],
  );
  const row = rows[0] as { lease_granted_at: Date; lease_until: Date };
  return { holder, grantedAt: row.lease_granted_at, until: row.lease_until };
}

/** Records what the destination showed for the operation's expired lease (the caller holds the row lock). */
export async function settleLease(sql: Sql, key: string, settlement: LeaseSettlement): Promise<void> {
  await sql.execute(
    `update operations set lease_effect = $2, lease_effect_receipt = $3, lease_effect_by = $4, lease_effect_at = $5
      where operation_key = $1`,
    [key, settlement.effect, settlement.receipt, settlement.by, settlement.at],
  );
}

/** When a destination check last looked at the operation's expired lease (the background job's pause). */
export async function markLeaseChecked(sql: Sql, key: string, at: Date): Promise<void> {
  await sql.execute("update operations set lease_checked_at = $2 where operation_key = $1", [key, at]);
}

/**
 * Operations whose lease expired with no record and no settlement, not looked at by a check since `lookedBefore`:
 * the check job's other work (a chain with the key granted after the lease would have consumed it).
 */
export async function listUnsettledExpiredLeases(
  sql: Sql,
  lookedBefore: Date,
  limit: number,
): Promise<{ key: string; tool: string; server: string | null }[]> {
  return sql.query(
    `select o.operation_key as key, o.tool, o.server from operations o
      where o.lease_until < now() and o.lease_effect is null
        and (o.lease_checked_at is null or o.lease_checked_at < $1)
        and not exists (select 1 from chains c
          where c.operation_key = o.operation_key and c.first_seen_at >= o.lease_granted_at)
      order by o.lease_until limit $2`,
    [lookedBefore, limit],
  );
}

export type DecisionEntry = {
  id: bigint;
  decision: GuardDecision;
  status: OperationStatus;
  holder: string;
  tool: string;
  server: string | null;
  leaseUntil: Date | null;
  actor: string;
  at: Date;
};

export async function insertOperationDecision(
  sql: Sql,
  key: string,
  entry: Omit<DecisionEntry, "at" | "id">,
): Promise<Date> {
  const rows = await sql.query<{ at: Date }>(
    `insert into operation_decisions (operation_key, decision, status, holder, tool, server, lease_until, actor)
      values ($1, $2, $3, $4, $5, $6, $7, $8) returning at`,
    [
      key,
      entry.decision,
      entry.status,
      entry.holder,
      entry.tool,
      entry.server,
      entry.leaseUntil,
      entry.actor,
    ],
  );
  return (rows[0] as { at: Date }).at;
}

/** The guard's decisions on the key, oldest first, newest `limit`. */
export async function readOperationDecisions(sql: Sql, key: string, limit = 500): Promise<DecisionEntry[]> {
  const rows = await sql.query<{
    id: bigint;
    decision: GuardDecision;
    status: OperationStatus;
    holder: string;
    tool: string;
    server: string | null;
    lease_until: Date | null;
    actor: string;
    at: Date;
  }>(
    `select * from (select id, decision, status, holder, tool, server, lease_until, actor, at
        from operation_decisions where operation_key = $1 order by id desc limit $2) newest order by id`,
    [key, limit],
  );
  return rows.map((row) => ({
    id: row.id,
    decision: row.decision,
    status: row.status,
    holder: row.holder,
    tool: row.tool,
    server: row.server,
    leaseUntil: row.lease_until,
    actor: row.actor,
    at: row.at,
  }));
}

export type CommittedReceipts = {
  effect: string | null;
  outcome: string | null;
  /** The receipt an operator recorded when reconciling the chain, if any. */
  operator: string | null;
};

// Prepared: the guard's `already_committed` answer reads it, and planning the join over every weekly partition of
// health_records cost PostgreSQL about 0.7 ms a call, five times its execution. Its plan is key lookups (the chain by
// its primary key, its record by (seq, observed_at) in each partition's primary key); as with the guard's read
// (operations-guard-store.ts), the one risk is a generic plan made while chains was nearly empty, and ANALYZE, which
// autovacuum runs once a table has grown by a tenth, invalidates it.
const READ_CHAIN_RECEIPTS = prepared(
  "receipt_read_chain_receipts",
  `select h.body -> 'effect' ->> 'receipt' as effect, h.body -> 'outcome' ->> 'receipt' as outcome,
      (select receipt from operator_effects o where o.chain_id = c.chain_id
        order by checked_at desc, id desc limit 1) as operator
    from chains c
    join health_records h on h.seq = c.current_seq and h.observed_at = c.observed_at
    where c.chain_id = $1`,
);

/** The receipts of a chain's current record (destination and verifier) and of its newest operator evidence. */
export async function readChainReceipts(sql: Sql, chainId: string): Promise<CommittedReceipts> {
  const rows = await sql.query<CommittedReceipts>(READ_CHAIN_RECEIPTS, [chainId]);
  return rows[0] ?? { effect: null, outcome: null, operator: null };
}
