import { deleteChainsKeepingRollups } from "./chain-rollups";
import { MAX_EXACT_KEYS, tryLockFamilyShared } from "./key-locks";
import type { Sql } from "./sql";

// What retention deletes, in bounded steps (lib/server/retention/prune-job.ts). A chain is prunable when its newest
// record (chains.observed_at) is older than the records cutoff, it has no firing alert and it is in no open or
// acknowledged triage item. Triage items, triage events and problem resolutions are never deleted here.

const PRUNABLE = `c.observed_at < $1::timestamptz
  and not exists (select 1 from alerts a where a.chain_id = c.chain_id and a.status = 'firing')
  and not exists (select 1 from triage_items t where t.chain_id = c.chain_id and t.status in ('open', 'acknowledged'))`;

/**
 * Up to `limit` prunable chains, oldest first, each locked for this transaction. A chain being written right now
 * (ingestion, the deadline worker, reconciliation hold its advisory lock) is skipped, never waited for, and is
 * checked again under the lock so a record stored meanwhile keeps it.
 */
export async function lockPrunableChains(sql: Sql, cutoff: Date, limit: number): Promise<string[]> {
  if (!(await tryLockFamilyShared(sql, "chains"))) return [];
  // Locked one by one, so never more than a transaction may lock that way (lib/server/db/key-locks.ts).
  const candidates = await sql.query<{ chain_id: string }>(
    `select c.chain_id from chains c where ${PRUNABLE} order by c.observed_at limit $2::int`,
    [cutoff.toISOString(), Math.min(limit, MAX_EXACT_KEYS)],
  );
  if (candidates.length === 0) return [];
  const locked = await sql.query<{ c: string }>(
    `select c from unnest($1::text[]) as c where pg_try_advisory_xact_lock(hashtextextended(c, 0)) order by 1`,
    [candidates.map((row) => row.chain_id).sort()],
  );
  const stillPrunable = await sql.query<{ chain_id: string }>(
    `select c.chain_id from chains c where c.chain_id = any($2::text[]) and ${PRUNABLE}`,
    [cutoff.toISOString(), locked.map((row) => row.c)],
  );
  return stillPrunable.map((row) => row.chain_id);
}

/**
 * Deletes chains with their state history and operator evidence, and their records held by the DEFAULT
 * partition; the chain rows through deleteChainsKeepingRollups, which takes them out of the rollups in the same
 * statement. Their records in weekly partitions go with the partition (dropRecordPartition) or, in a week a kept
 * chain shares, row by row (deleteOrphanRecords): no read reaches a record but through its chain. The one place
 * chains are deleted. Returns the chains deleted.
 */
export async function deleteChains(sql: Sql, chainIds: string[]): Promise<number> {
  if (chainIds.length === 0) return 0;
  await sql.execute("delete from health_records_default where chain_id = any($1::text[])", [chainIds]);
  await sql.execute("delete from chain_state_changes where chain_id = any($1::text[])", [chainIds]);
  await sql.execute("delete from operator_effects where chain_id = any($1::text[])", [chainIds]);
  await sql.execute("delete from check_runs where chain_id = any($1::text[])", [chainIds]);
  return deleteChainsKeepingRollups(sql, chainIds);
}

/**
 * Deletes up to `limit` alerts resolved before `cutoff`, with their notification-group members (a member left of a
 * resolved alert is one whose resolution was never sent: long past). Returns how many alerts went.
 */
export async function deleteResolvedAlerts(sql: Sql, cutoff: Date, limit: number): Promise<number> {
  const [row] = await sql.query<{ deleted: number }>(
    `with gone as (
        delete from alerts where fingerprint = any(array(
          select fingerprint from alerts where status = 'resolved' and ends_at < $1::timestamptz
            order by ends_at limit $2::int for update skip locked))
        returning fingerprint
      ), members as (
        delete from notification_group_members m using gone where m.fingerprint = gone.fingerprint
      )
      select count(*)::int as deleted from gone`,
    [cutoff.toISOString(), limit],
  );
  return row?.deleted ?? 0;
}

/** Deletes up to `limit` delivered or dead deliveries made before `cutoff`; their attempts go with them (cascade). */
export async function deleteFinishedDeliveries(sql: Sql, cutoff: Date, limit: number): Promise<number> {
  return sql.execute(
    `delete from deliveries where id = any(array(
      select id from deliveries where status in ('delivered', 'dead') and created_at < $1::timestamptz
        order by created_at limit $2::int for update skip locked))`,
    [cutoff.toISOString(), limit],
  );
}

/** Only one instance prunes at a time: held until the step's transaction ends. */
export async function tryLockPruning(sql: Sql): Promise<boolean> {
  const [row] = await sql.query<{ locked: boolean }>(
    "select pg_try_advisory_xact_lock(hashtextextended('receipt:retention', 0)) as locked",
  );
  return row?.locked ?? false;
}

/**
 * Deletes up to `limit` operations nothing has touched since `cutoff` (created, leased, settled or asked about) and
 * whose chains are all gone, with their guard decisions: an idempotency key is remembered as long as the evidence of
 * its attempts is. A key still held by a chain, or asked about since the cutoff, stays.
 */
export async function deleteForgottenOperations(sql: Sql, cutoff: Date, limit: number): Promise<number> {
  const [row] = await sql.query<{ deleted: number }>(
    `with gone as (
        delete from operations where operation_key = any(array(
          select o.operation_key from operations o
           where greatest(o.created_at, o.lease_granted_at, o.lease_until, o.lease_effect_at, o.lease_checked_at)
                   < $1::timestamptz
             and not exists (select 1 from chains c where c.operation_key = o.operation_key)
             and not exists (select 1 from operation_decisions d
                              where d.operation_key = o.operation_key and d.at >= $1::timestamptz)
           order by o.created_at limit $2::int for update skip locked))
        returning operation_key
      ), decisions as (
        delete from operation_decisions d using gone where d.operation_key = gone.operation_key
      )
      select count(*)::int as deleted from gone`,
    [cutoff.toISOString(), limit],
  );
  return row?.deleted ?? 0;
}
