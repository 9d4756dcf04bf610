import { inTransaction, poolSql, prepared, type Sql } from "./sql";

/** The background jobs that set items aside, and what their item keys are. */
export const SET_ASIDE_JOBS = {
  /** chain id; version: the chain's current record id */
  deadline: "deadline",
  /** alert fingerprint */
  alertRouting: "alert-routing",
  /** notification group key */
  groupFlush: "group-flush",
  /** delivery id */
  delivery: "delivery",
} as const;

export type SetAsideJob = (typeof SET_ASIDE_JOBS)[keyof typeof SET_ASIDE_JOBS];

export type SetAside = { key: string; version?: string | null; reason: string };

/**
 * Records items as set aside by `job`. Returns the keys newly set aside or set aside for another reason or version
 * (an item that fails again the same way is not news: its row is left as it was).
 */
export async function setItemsAside(sql: Sql, job: SetAsideJob, items: SetAside[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const rows = await sql.query<{ item_key: string }>(
    `insert into set_aside_items as s (job, item_key, item_version, reason, set_aside_at)
      select $1, u.item_key, u.item_version, u.reason, now()
      from unnest($2::text[], $3::text[], $4::text[]) as u(item_key, item_version, reason)
    on conflict (job, item_key) do update set item_version = excluded.item_version, reason = excluded.reason,
      set_aside_at = excluded.set_aside_at
      where (s.item_version, s.reason) is distinct from (excluded.item_version, excluded.reason)
    returning s.item_key`,
    [job, items.map((i) => i.key), items.map((i) => i.version ?? null), items.map((i) => i.reason)],
  );
  return new Set(rows.map((row) => row.item_key));
}

// Prepared: every routing run and flush clears what it wrote (a unique-key lookup per item).
const CLEAR_SET_ASIDE = prepared(
  "receipt_clear_set_aside",
  "delete from set_aside_items where job = $1 and item_key = any($2::text[])",
);

/** Items `job` has now processed: no longer set aside. */
export async function clearSetAside(sql: Sql, job: SetAsideJob, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await sql.execute(CLEAR_SET_ASIDE, [job, keys]);
}

// A deadline set-aside whose chain has a newer current record (or no longer exists) is no longer in force: the
// deadline job tries the chain again. Nor is a silence's once the silence has ended.
const IN_FORCE = `(case
  when s.job = 'deadline' then exists (select 1 from chains c
    where c.chain_id = s.item_key and c.current_record_id = s.item_version)
  when s.item_key like 'silence:%' then exists (select 1 from silences x
    where 'silence:' || x.id = s.item_key and x.expired_at is null and x.ends_at > now())
  else true end)`;

/** How many items each job has set aside now (jobs with none are listed with 0). */
export async function countSetAsideByJob(): Promise<Record<SetAsideJob, number>> {
  const rows = await poolSql().query<{ job: SetAsideJob; count: number }>(
    `select s.job, count(*)::int as count from set_aside_items s where ${IN_FORCE} group by s.job`,
  );
  const counts = Object.fromEntries(Object.values(SET_ASIDE_JOBS).map((job) => [job, 0])) as Record<
    SetAsideJob,
    number
  >;
  for (const row of rows) counts[row.job] = row.count;
  return counts;
}

export type SetAsideRow = { job: string; itemKey: string; reason: string; setAsideAt: Date };

/** The items set aside now, oldest first: what an operator looks at. */
export async function listSetAside(limit = 500): Promise<SetAsideRow[]> {
  return poolSql().query<SetAsideRow>(
    `select s.job, s.item_key as "itemKey", s.reason, s.set_aside_at as "setAsideAt" from set_aside_items s
      where ${IN_FORCE} order by s.set_aside_at limit $1`,
    [limit],
  );
}

/** A chain's deadline set-aside in force, if any (shown with the chain). */
export async function readChainSetAside(
  chainId: string,
): Promise<{ reason: string; setAsideAt: Date } | null> {
  const [row] = await poolSql().query<{ reason: string; setAsideAt: Date }>(
    `select s.reason, s.set_aside_at as "setAsideAt" from set_aside_items s
      where s.job = 'deadline' and s.item_key = $1 and ${IN_FORCE}`,
    [chainId],
  );
  return row ?? null;
}

/**
 * An operator's retry: the items (all, a job's, or one) are no longer set aside and their job takes them up again on
 * its next run — a chain is due again, an alert is routed again, a group is flushed again, a delivery gets a fresh
 * set of attempts. Returns how many items were released.
 */
export async function retrySetAside(filter: { job?: string; key?: string } = {}): Promise<number> {
  return inTransaction(async (sql) => {
    const released = await sql.query<{ job: string; item_key: string }>(
      `delete from set_aside_items where ($1::text is null or job = $1) and ($2::text is null or item_key = $2)
        returning job, item_key`,
      [filter.job ?? null, filter.key ?? null],
    );
    const keysOf = (job: SetAsideJob) => released.filter((r) => r.job === job).map((r) => r.item_key);
    await sql.execute(
      `insert into alert_outbox (fingerprint, chain_id, event)
        select fingerprint, chain_id, 'updated' from alerts where fingerprint = any($1::text[])`,
      [keysOf(SET_ASIDE_JOBS.alertRouting)],
    );
    await sql.execute(
      "update notification_groups set next_action_at = now() where group_key = any($1::text[])",
      [keysOf(SET_ASIDE_JOBS.groupFlush)],
    );
    await sql.execute(
      `update deliveries set status = 'pending', attempts = 0, next_attempt_at = now(), last_error = null
        where id = any($1::bigint[]) and status = 'dead'`,
      [keysOf(SET_ASIDE_JOBS.delivery)],
    );
    return released.length;
  });
}

// What a set-aside item is about still exists: an item whose alert, group or delivery is gone has nothing left to
// retry (the delivery key is checked as a number first: CASE keeps the cast from failing on any other text).
const SUBJECT_STORED = `(case
  when s.job = 'alert-routing' then exists (select 1 from alerts a where a.fingerprint = s.item_key)
  when s.job = 'group-flush' then exists (select 1 from notification_groups g where g.group_key = s.item_key)
  when s.job = 'delivery' then exists (select 1 from deliveries d
    where d.id = case when s.item_key ~ '^[0-9]{1,18}$' then s.item_key::bigint end)
  else true end)`;

/**
 * Retention: deletes up to `limit` items set aside before `cutoff` that are settled: no longer in force (a chain
 * with a newer record or none, an ended silence) or about an alert, group or delivery that is gone. An item still
 * waiting for an operator's retry stays whatever its age. Returns how many went.
 */
export async function deleteSettledSetAside(sql: Sql, cutoff: Date, limit: number): Promise<number> {
  return sql.execute(
    `delete from set_aside_items where (job, item_key) in (
      select s.job, s.item_key from set_aside_items s
        where s.set_aside_at < $1::timestamptz and not (${IN_FORCE} and ${SUBJECT_STORED})
        limit $2::int for update skip locked)`,
    [cutoff.toISOString(), limit],
  );
}
