import type { AttemptFacts, LeaseFacts } from "@/lib/operations/status";
import {
  type AttemptSqlRow,
  type DecisionEntry,
  type OperationRow,
  type OperationSqlRow,
  toAttempt,
  toOperation,
} from "./operations-store";
import { prepared, type Sql } from "./sql";

// The retry guard's fast path (lib/server/operations/operations-service.ts): one statement reads everything a
// decision needs, one statement stores it. Each round trip to PostgreSQL costs more here than the decision itself
// (a socket write and read on each side), and the locked path takes seven.

/**
 * What the lease looked like when it was read, its grant and settlement times as PostgreSQL prints them (a Date
 * would drop their microseconds): a grant goes through only if it still looks so.
 */
export type LeaseVersion = { grantedAt: string | null; settledAt: string | null };

export type GuardFacts = {
  operation: OperationRow | null;
  attempts: AttemptFacts[];
  version: LeaseVersion;
};

// Prepared, unlike other reads (sql.ts): planning it (the chains table's many indexes) cost PostgreSQL 350 µs of the
// 510 it spent on it, the largest share of a decision. Its plan is two equality lookups on indexed keys; the one risk
// is a generic plan made while the tables were nearly empty (sequential scans), and ANALYZE, which autovacuum runs
// once a table has grown by a tenth, invalidates it.
const READ_GUARD_FACTS = prepared(
  "receipt_guard_facts",
  `select o.tool, o.server, o.lease_holder, o.lease_granted_at, o.lease_until, o.lease_effect,
    o.lease_effect_receipt, o.lease_effect_by, o.lease_effect_at, o.operation_key is not null as exists,
    o.lease_granted_at::text as granted_version, o.lease_effect_at::text as settled_version,
    (select coalesce(json_agg(json_build_object('chain_id', c.chain_id, 'state', c.state, 'reasons', c.reasons,
        'retry_safe', c.retry_safe, 'shadowed_state', c.shadowed_state, 'tool', c.tool, 'server_name', c.server_name,
        'observed_at', c.observed_at, 'first_seen_at', c.first_seen_at) order by c.observed_at, c.chain_id), '[]')
      from chains c where c.operation_key = $1) as attempts
  from (select 1) one left join operations o on o.operation_key = $1`,
);

/** The operation's row (null when it has none), its attempts oldest first, and its lease's version: one statement. */
export async function readGuardFacts(sql: Sql, key: string): Promise<GuardFacts> {
  const [row] = await sql.query<
    OperationSqlRow & {
      exists: boolean;
      granted_version: string | null;
      settled_version: string | null;
      attempts: AttemptSqlRow[];
    }
  >(READ_GUARD_FACTS, [key]);
  if (!row) throw new Error("the guard's read returned no row");
  return {
    operation: row.exists ? toOperation(row) : null,
    attempts: row.attempts.map(toAttempt),
    version: { grantedAt: row.granted_version, settledAt: row.settled_version },
  };
}

type DecisionFields = Omit<DecisionEntry, "at" | "id" | "leaseUntil">;

const STORE_REFUSAL = prepared(
  "receipt_guard_store_refusal",
  `with bound as (insert into operations (operation_key, tool, server) values ($1, $2, $3) on conflict do nothing)
  insert into operation_decisions (operation_key, decision, status, holder, tool, server, lease_until, actor)
    values ($1, $4, $5, $6, $2, $3, null, $7)`,
);

/** A decision that grants nothing (wait, reconcile first, already committed), and the key's binding if it had none. */
export async function storeDecisionWithoutLease(sql: Sql, key: string, entry: DecisionFields): Promise<void> {
  await sql.execute(STORE_REFUSAL, [
    key,
    entry.tool,
    entry.server,
    entry.decision,
    entry.status,
    entry.holder,
    entry.actor,
  ]);
}

// The lease is granted only where it is still the one read ($6, $7: its grant and settlement times as text, both
// null for no lease or no row): a racing caller that granted or settled it first makes this a no-op (INSERT … ON CONFLICT
// re-checks the WHERE against the row it waited for), and so does a row another tool bound meanwhile; the caller
// then decides again under the row's lock.
const GRANT_IF_UNCHANGED = prepared(
  "receipt_guard_grant_if_unchanged",
  `with granted as (
    insert into operations as o (operation_key, tool, server, lease_holder, lease_granted_at, lease_until)
      values ($1, $2, $3, $4, now(), now() + make_interval(secs => $5::double precision / 1000))
    on conflict (operation_key) do update set lease_holder = excluded.lease_holder,
        lease_granted_at = excluded.lease_granted_at, lease_until = excluded.lease_until, lease_effect = null,
        lease_effect_receipt = null, lease_effect_by = null, lease_effect_at = null
      where o.lease_granted_at::text is not distinct from $6 and o.lease_effect_at::text is not distinct from $7
        and o.tool = $2 and ($3::text is null or o.server is null or o.server = $3)
    returning lease_granted_at, lease_until),
  decided as (
    insert into operation_decisions (operation_key, decision, status, holder, tool, server, lease_until, actor)
      select $1, 'proceed', $8, $4, $2, $3, lease_until, $9 from granted)
  select lease_granted_at, lease_until from granted`,
);

/** Grants the lease and stores the `proceed` in one statement, if the lease is still `expected`; else null. */
export async function grantLeaseIfUnchanged(
  sql: Sql,
  key: string,
  entry: DecisionFields,
  leaseMs: number,
  expected: LeaseVersion,
): Promise<LeaseFacts | null> {
  const [row] = await sql.query<{ lease_granted_at: Date; lease_until: Date }>(GRANT_IF_UNCHANGED, [
    key,
    entry.tool,
    entry.server,
    entry.holder,
    leaseMs,
    expected.grantedAt,
    expected.settledAt,
    entry.status,
    entry.actor,
  ]);
  return row ? { holder: entry.holder, grantedAt: row.lease_granted_at, until: row.lease_until } : null;
}
