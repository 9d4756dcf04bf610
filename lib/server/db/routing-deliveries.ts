import { getPrisma } from "./client";
import { jsonRows } from "./json-rows";
import { type Failure, isTransientError, writeIsolated } from "./isolated-writes";
import { clearSetAside, type SetAside, SET_ASIDE_JOBS, setItemsAside } from "./set-aside";
import { inTransaction, poolSql, prepared, type Sql } from "./sql";

export type DeliveryInsert = {
  groupKey: string;
  channel: string;
  targetIndex: number;
  targetType: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  signingSecret: string | null;
  kind: "notification" | "test";
  alertFingerprints: string[];
  maxAttempts: number;
};

// Prepared: its plan cannot depend on the rows (an INSERT from a JSON document of them).
const INSERT_DELIVERIES = prepared(
  "receipt_insert_deliveries",
  `insert into deliveries (group_key, channel, target_index, target_type, url, body, headers, signing_secret, kind,
    alert_fingerprints, max_attempts, status, next_attempt_at, created_at)
  select u.group_key, u.channel, u.target_index, u.target_type, u.url, u.body, u.headers, u.signing_secret, u.kind,
    u.alert_fingerprints, u.max_attempts, 'pending', $2, $2
  from rows from (json_to_recordset($1::json) as (group_key text, channel text, target_index int,
    target_type text, url text, body text, headers jsonb, signing_secret text, kind text, alert_fingerprints text[],
    max_attempts int)) with ordinality as u(group_key, channel, target_index, target_type, url, body, headers,
    signing_secret, kind, alert_fingerprints, max_attempts, n)
  order by u.n
  returning id`,
);

/** Queues deliveries (one statement whatever their number); returns their ids in the order given. */
export async function insertDeliveries(sql: Sql, rows: DeliveryInsert[], now: Date): Promise<bigint[]> {
  if (rows.length === 0) return [];
  const created = await sql.query<{ id: bigint }>(INSERT_DELIVERIES, [
    jsonRows(
      rows.map((row) => ({
        group_key: row.groupKey,
        channel: row.channel,
        target_index: row.targetIndex,
        target_type: row.targetType,
        url: row.url,
        body: row.body,
        headers: row.headers,
        signing_secret: row.signingSecret,
        kind: row.kind,
        alert_fingerprints: row.alertFingerprints,
        max_attempts: row.maxAttempts,
      })),
    ),
    now,
  ]);
  return created.map((row) => row.id);
}

/** Claimed deliveries handed back unsent (their target paused): due again at `at`, the claim's attempt undone. */
export async function releaseDeliveries(ids: bigint[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await poolSql().execute(
    `update deliveries set attempts = greatest(0, attempts - 1), next_attempt_at = $2
      where id = any($1::bigint[]) and status = 'pending'`,
    [ids.map(String), at],
  );
}

/**
 * Deliveries the worker could not claim or attempt: dead letters (retryable like any), recorded as set aside. One whose
 * outcome was recorded before the failure keeps it. Returns the keys set aside now that were not before.
 */
export async function markDeliveriesSetAside(items: SetAside[]): Promise<ReadonlySet<string>> {
  if (items.length === 0) return new Set();
  return inTransaction(async (sql) => {
    const fresh = await setItemsAside(sql, SET_ASIDE_JOBS.delivery, items);
    await sql.execute(
      `update deliveries d set status = 'dead', last_error = 'set aside: ' || u.reason
        from unnest($1::bigint[], $2::text[]) as u(id, reason) where d.id = u.id and d.status = 'pending'`,
      [items.map((item) => item.key), items.map((item) => item.reason)],
    );
    return fresh;
  });
}

export type AttemptOutcome = {
  at: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** delivered, retry at nextAttemptAt, or dead (attempts exhausted or a permanent refusal). */
  status: "delivered" | "pending" | "dead";
  nextAttemptAt: Date;
};

// The attempts logged and their deliveries moved on in one statement: one round trip, where the transaction that
// isolates a refused outcome takes six. $1 ids, $2 at, $3 status codes, $4 latencies, $5 errors, $6 statuses, $7 the
// next attempts. Returns the deliveries that are done (delivered or dead) while a later one of their group waits for
// the same target: the claim skipped it until now.
const RECORD_ATTEMPTS = prepared(
  "receipt_record_attempts",
  `with logged as (insert into delivery_attempts (delivery_id, at, status_code, latency_ms, error)
      select * from unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::int[], $5::text[]))
  update deliveries d set status = u.status, last_error = u.error, next_attempt_at = u.next_attempt_at,
      delivered_at = case when u.status = 'delivered' then u.at else d.delivered_at end
    from unnest($1::bigint[], $6::text[], $5::text[], $7::timestamptz[], $2::timestamptz[])
      as u(id, status, error, next_attempt_at, at)
    where d.id = u.id
  returning d.id, d.status <> 'pending' and exists (select 1 from deliveries o
    where o.group_key = d.group_key and o.id <> d.id
      and (o.status, o.channel, o.target_index) is not distinct from ('pending', d.channel, d.target_index)) as unblocks`,
);

/**
 * Logs attempts and moves their deliveries on, the whole batch in one statement. When PostgreSQL refuses it, the
 * batch is written again in a transaction, one outcome at a time if need be: an outcome it refuses is returned as a
 * failure (the caller sets its delivery aside); the others are written. `unblocking`: the written deliveries whose
 * group has a later delivery waiting for the same target (null: not known, after the item-by-item path).
 */
export async function recordAttempts(
  outcomes: (AttemptOutcome & { id: bigint })[],
): Promise<{ failures: Failure<bigint>[]; unblocking: ReadonlySet<bigint> | null }> {
  if (outcomes.length === 0) return { failures: [], unblocking: new Set() };
  try {
    const rows = await poolSql().query<{ id: bigint; unblocks: boolean }>(RECORD_ATTEMPTS, [
      outcomes.map((o) => String(o.id)),
      outcomes.map((o) => o.at.toISOString()),
      outcomes.map((o) => o.statusCode),
      outcomes.map((o) => o.latencyMs),
      outcomes.map((o) => o.error),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.nextAttemptAt.toISOString()),
    ]);
    return { failures: [], unblocking: new Set(rows.filter((row) => row.unblocks).map((row) => row.id)) };
  } catch (error) {
    if (isTransientError(error)) throw error;
    return { ...(await recordAttemptsIsolated(outcomes)), unblocking: null };
  }
}

function recordAttemptsIsolated(outcomes: (AttemptOutcome & { id: bigint })[]) {
  const byId = new Map(outcomes.map((o) => [o.id, o]));
  return inTransaction(async (sql) => {
    const { failures } = await writeIsolated(sql, [...byId.keys()], async (ids) => {
      const rows = ids.map((id) => byId.get(id) as AttemptOutcome & { id: bigint });
      const column = <T>(pick: (o: AttemptOutcome & { id: bigint }) => T) => rows.map(pick);
      await sql.execute(
        `insert into delivery_attempts (delivery_id, at, status_code, latency_ms, error)
          select * from unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::int[], $5::text[])`,
        [
          column((o) => String(o.id)),
          column((o) => o.at.toISOString()),
          column((o) => o.statusCode),
          column((o) => o.latencyMs),
          column((o) => o.error),
        ],
      );
      await sql.execute(
        `update deliveries d set status = u.status, last_error = u.error, next_attempt_at = u.next_attempt_at,
            delivered_at = case when u.status = 'delivered' then u.at else d.delivered_at end
          from unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[])
            as u(id, status, error, next_attempt_at, at)
          where d.id = u.id`,
        [
          column((o) => String(o.id)),
          column((o) => o.status),
          column((o) => o.error),
          column((o) => o.nextAttemptAt.toISOString()),
          column((o) => o.at.toISOString()),
        ],
      );
    });
    return { failures };
  });
}

/**
 * A dead letter gets a fresh set of attempts (its attempt log is kept), and is no longer set aside. Returns what it
 * was (for the audit log), or null when the delivery is not dead.
 */
export async function reviveDeadDelivery(
  sql: Sql,
  id: bigint,
  now: Date,
): Promise<{ channel: string; targetType: string; attempts: number } | null> {
  const [revived] = await sql.query<{ channel: string; targetType: string; attempts: number }>(
    `update deliveries d set status = 'pending', attempts = 0, next_attempt_at = $2::timestamptz, last_error = null
      from (select id, attempts from deliveries where id = $1::bigint and status = 'dead' for update) old
      where d.id = old.id
      returning d.channel, d.target_type as "targetType", old.attempts`,
    [id.toString(), now],
  );
  if (revived) await clearSetAside(sql, SET_ASIDE_JOBS.delivery, [String(id)]);
  return revived ?? null;
}

export async function deliveryExists(id: bigint): Promise<boolean> {
  return (await getPrisma().delivery.count({ where: { id } })) === 1;
}

export type DeliveryFilter = {
  status?: string;
  channel?: string;
  /** Only these (found first by deliveryIdsOfAlerts). */
  ids?: bigint[];
  beforeId?: bigint;
  limit: number;
};

/** Newest first, with each delivery's attempts (oldest first); the signing secret is never selected. */
export async function listDeliveries(filter: DeliveryFilter) {
  return getPrisma().delivery.findMany({
    where: {
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.channel ? { channel: filter.channel } : {}),
      ...(filter.ids ? { id: { in: filter.ids } } : {}),
      ...(filter.beforeId !== undefined ? { id: { lt: filter.beforeId } } : {}),
    },
    orderBy: { id: "desc" },
    take: filter.limit,
    select: {
      id: true,
      groupKey: true,
      channel: true,
      targetIndex: true,
      targetType: true,
      url: true,
      body: true,
      kind: true,
      alertFingerprints: true,
      status: true,
      attempts: true,
      maxAttempts: true,
      nextAttemptAt: true,
      lastError: true,
      createdAt: true,
      deliveredAt: true,
      attemptLog: {
        orderBy: { id: "asc" },
        select: { at: true, statusCode: true, latencyMs: true, error: true },
      },
    },
  });
}
