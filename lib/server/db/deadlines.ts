import { tryLockFamilyShared } from "./key-locks";
import type { Sql } from "./sql";

/** A due `working` chain as stored; the body is parsed by the caller, one chain at a time. */
export type DueChainRow = {
  chainId: string;
  nextCheckAt: Date;
  currentSeq: bigint;
  currentRecordId: string;
  recordCount: number;
  bodyText: string;
};

/**
 * `working` chains whose nextCheckAt has passed, oldest deadline first, locked FOR UPDATE SKIP LOCKED (another
 * instance takes the next ones), leaving out chains set aside for their current record.
 */
export async function claimDueWorkingChains(sql: Sql, now: Date, limit: number): Promise<DueChainRow[]> {
  return sql.query<DueChainRow>(
    `select c.chain_id as "chainId", c.next_check_at as "nextCheckAt", c.current_seq as "currentSeq",
        c.current_record_id as "currentRecordId", c.record_count as "recordCount", r.body::text as "bodyText"
      from chains c join health_records r on r.seq = c.current_seq
      where c.state = 'working' and c.next_check_at <= $1
        and not exists (select 1 from set_aside_items s
          where s.job = 'deadline' and s.item_key = c.chain_id and s.item_version = c.current_record_id)
      order by c.next_check_at
      limit $2
      for update of c skip locked`,
    [now, limit],
  );
}

/**
 * The chain's advisory lock if it is free now: false while ingestion or reconciliation is writing it (holding its
 * key, or every chain's: lib/server/db/key-locks.ts).
 */
export async function tryLockChain(sql: Sql, chainId: string): Promise<boolean> {
  if (!(await tryLockFamilyShared(sql, "chains"))) return false;
  const [row] = await sql.query<{ locked: boolean }>(
    "select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked",
    [chainId],
  );
  return row?.locked ?? false;
}
