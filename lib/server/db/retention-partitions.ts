import { tryLockPruning } from "./retention";
import type { Sql } from "./sql";

// The weekly partitions of health_records (migration 20261202022433_partition_health_records). A partition is named
// by the Monday (UTC) its week starts on, `health_records_w20261130`, and holds observed_at in [Monday, next Monday).
// Only partitions named so are ever made or dropped here: the DEFAULT partition and anything else stay.

const WEEK_MS = 7 * 24 * 60 * 60_000;
const PARTITION_NAME = /^health_records_w(\d{4})(\d{2})(\d{2})$/;

export type RecordPartition = { name: string; from: Date; to: Date };

/** The Monday 00:00 UTC that starts the week holding `at`. */
export function weekStart(at: Date): Date {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * 24 * 60 * 60_000);
}

export function partitionOfWeek(from: Date): RecordPartition {
  const stamp = from.toISOString().slice(0, 10).replaceAll("-", "");
  return { name: `health_records_w${stamp}`, from, to: new Date(from.getTime() + WEEK_MS) };
}

/** The weekly partitions that exist, oldest first. */
export async function listRecordPartitions(sql: Sql): Promise<RecordPartition[]> {
  const rows = await sql.query<{ name: string }>(
    `select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'health_records'::regclass`,
  );
  return rows
    .flatMap(({ name }) => {
      const match = PARTITION_NAME.exec(name);
      return match ? [partitionOfWeek(new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`))] : [];
    })
    .sort((a, b) => a.from.getTime() - b.from.getTime());
}

/** Most rows of a week the DEFAULT partition may hold for the week's partition to be made (they move into it). */
export const MOVABLE_DEFAULT_ROWS = 20_000;

/**
 * Makes one week's partition, in the caller's transaction. Rows of that week in the DEFAULT partition (records
 * stored before the partition existed) move into it: PostgreSQL refuses a partition whose range the DEFAULT
 * partition holds rows of. Making a partition locks health_records exclusively for a moment, so the lock is
 * waited for briefly (an ingestion batch in flight goes first) and the next run tries again. Returns false when
 * the week has too many rows in the DEFAULT partition: they stay there and go row by row with their chains.
 */
export async function createRecordPartition(sql: Sql, partition: RecordPartition): Promise<boolean> {
  const range = [partition.from.toISOString(), partition.to.toISOString()];
  await sql.execute("set local lock_timeout = '1s'");
  await sql.execute("lock table health_records in access exclusive mode");
  const [inDefault] = await sql.query<{ n: number }>(
    `select count(*)::int as n from (select 1 from health_records_default
      where observed_at >= $1::timestamptz and observed_at < $2::timestamptz limit ${MOVABLE_DEFAULT_ROWS + 1}) r`,
    range,
  );
  if ((inDefault?.n ?? 0) > MOVABLE_DEFAULT_ROWS) return false;
  await sql.execute("create temporary table moving_records (like health_records) on commit drop");
  await sql.execute(
    `with moved as (delete from health_records_default
        where observed_at >= $1::timestamptz and observed_at < $2::timestamptz returning *)
      insert into moving_records select * from moved`,
    range,
  );
  // DDL takes no parameters: the name and the bounds are made here from a Date, never from input.
  await sql.execute(
    `create table ${partition.name} partition of health_records
      for values from ('${range[0]}') to ('${range[1]}')`,
  );
  await sql.execute("insert into health_records select * from moving_records");
  return true;
}

/**
 * Whether a record of the week belongs to a chain still stored (a kept chain: the pruned ones are gone by then).
 * A read with no lock, so it may be long: dropRecordPartition re-checks under its lock what arrived meanwhile.
 */
export async function partitionHoldsStoredChains(sql: Sql, partition: RecordPartition): Promise<boolean> {
  const [kept] = await sql.query<{ chain_id: string }>(
    `select r.chain_id from ${partition.name} r
      where exists (select 1 from chains c where c.chain_id = r.chain_id) limit 1`,
  );
  return kept !== undefined;
}

/**
 * Detaches and drops a week, in the caller's transaction, unless a record received since `checkedFrom` (after
 * partitionHoldsStoredChains read the week) belongs to a stored chain: then nothing changes and it returns false.
 * Detaching locks health_records for a moment: the lock is waited for briefly (a batch in flight goes first) and
 * the next run tries again. The re-check reads only what arrived lately (the received_at BRIN index), so the lock
 * is short whatever the week's size.
 */
export async function dropRecordPartition(
  sql: Sql,
  partition: RecordPartition,
  checkedFrom: Date,
): Promise<boolean> {
  await sql.execute("set local lock_timeout = '500ms'");
  await sql.execute("savepoint drop_partition");
  await sql.execute(`alter table health_records detach partition ${partition.name}`);
  const [arrived] = await sql.query<{ chain_id: string }>(
    `select r.chain_id from ${partition.name} r
      where r.received_at >= $1::timestamptz and exists (select 1 from chains c where c.chain_id = r.chain_id)
      limit 1`,
    [checkedFrom.toISOString()],
  );
  if (arrived) {
    await sql.execute("rollback to savepoint drop_partition");
    return false;
  }
  await sql.execute(`drop table ${partition.name}`);
  return true;
}

/**
 * Deletes up to `limit` records of an old partition (or the DEFAULT one) observed before `before` whose chain is
 * gone: the records of pruned chains that share a week with a kept chain's. Returns how many went.
 */
export async function deleteOrphanRecords(
  sql: Sql,
  partitionName: string,
  before: Date,
  limit: number,
): Promise<number> {
  return sql.execute(
    `delete from ${partitionName} where ctid = any(array(
      select r.ctid from ${partitionName} r
        where r.observed_at < $1::timestamptz
          and not exists (select 1 from chains c where c.chain_id = r.chain_id)
        limit $2::int))`,
    [before.toISOString(), limit],
  );
}

/** Weeks made ahead of the current one, so records keep landing in a weekly partition through an outage. */
export const WEEKS_AHEAD = 4;

/** A transaction of the caller's: the app's pool (inTransaction), or a script's own connection (migrations). */
export type RunInTransaction = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

/**
 * Makes the partitions of this week and WEEKS_AHEAD weeks after it that do not exist yet, one transaction each,
 * under the pruning lock (another instance doing it meanwhile: this one leaves it). Runs after every migration and
 * on every run of the retention job; the bulk seed passes `since`, the oldest time it loads, to have the weeks back
 * to it made too, so its past records land in their weeks (dropped whole by retention), not in DEFAULT. Returns the
 * partitions made.
 */
export async function ensureRecordPartitions(
  transaction: RunInTransaction,
  now: Date,
  listWith: Sql,
  since: Date = now,
): Promise<string[]> {
  const existing = new Set((await listRecordPartitions(listWith)).map((partition) => partition.name));
  const first = weekStart(since < now ? since : now).getTime();
  const weeks = Math.round((weekStart(now).getTime() - first) / WEEK_MS) + WEEKS_AHEAD + 1;
  const wanted = Array.from({ length: weeks }, (_, i) => partitionOfWeek(new Date(first + i * WEEK_MS)));
  const made: string[] = [];
  for (const partition of wanted.filter((week) => !existing.has(week.name))) {
    const created = await transaction(async (sql) => {
      if (!(await tryLockPruning(sql))) return false;
      const [row] = await sql.query<{ found: string | null }>("select to_regclass($1)::text as found", [
        partition.name,
      ]);
      if (row?.found) return false;
      return createRecordPartition(sql, partition);
    }).catch((error: unknown) => {
      // 55P03: the brief wait for health_records' lock ran out (a long read or write held it): the next run tries.
      if ((error as { code?: string }).code === "55P03") return false;
      throw error;
    });
    if (created) made.push(partition.name);
  }
  return made;
}
