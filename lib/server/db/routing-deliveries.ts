import { getPrisma } from "./client";
import { jsonRows } from "./json-rows";
import { type Failure, writeIsolated } from "./isolated-writes";
import { clearSetAside, type SetAside, SET_ASIDE_JOBS, setItemsAside } from "./set-aside";
import { inTransaction, poolSql, type Sql } from "./sql";

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

/** Queues deliveries (one statement whatever their number); returns their ids in the order given. */
export async function insertDeliveries(sql: Sql, rows: DeliveryInsert[], now: Date): Promise<bigint[]> {
  if (rows.length === 0) return [];
  const created = await sql.query<{ id: bigint }>(
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
    [
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
    ],
  );
  return created.map((row) => row.id);
}

export type ClaimedDelivery = {
  id: bigint;
  channel: string;
  targetIndex: number;
  url: string;
  body: string;
  headers: Record<string, string>;
  signingSecret: string | null;
  /** Counting this one: the attempt number a receiver is told. */
  attempts: number;
  maxAttempts: number;
  /** webhook, slack, pagerduty */
  targetType: string;
  /** When the flush wrote it. */
  createdAt: Date;
};

/**
 * What the claim may take per target: `perTarget` each, less for the targets listed; never the ids excluded. Without
 * shares a claim takes due rows whatever their target.
 */
export type ClaimShares = {
  perTarget: number;
  allowances: { channel: string; targetIndex: number; free: number }[];
  exclude: bigint[];
};

/**
 * Claims due deliveries for one attempt each: the attempt counter and a lease (nextAttemptAt in the future) are
 * written in the transaction that picks the rows with SKIP LOCKED, so no other instance can pick them until the
 * lease ends — a crash mid-send is retried after it, a normal send records its outcome long before.
 * A delivery waits while an older notification of the same group to the same target is still pending, so a
 * receiver never sees a group's "resolved" before its "firing". Each target gets at most its share, and the rows are
 * taken round-robin across targets (every target's first due delivery before any target's second), so one target's
 * backlog never sits at the head of another's line. A delivery whose claim PostgreSQL refuses is returned as a
 * failure (the caller sets it aside), and the others are claimed.
 */
export async function claimDueDeliveries(
  now: Date,
  leaseMs: number,
  limit: number,
  shares: ClaimShares = { perTarget: 1_000_000_000, allowances: [], exclude: [] },
): Promise<{ claimed: ClaimedDelivery[]; failures: Failure<bigint>[] }> {
  if (limit <= 0) return { claimed: [], failures: [] };
  return inTransaction(async (sql) => {
    const due = await sql.query<{ id: bigint }>(
      // Per target with due rows, its share is read in order from the (status, channel, target_index,
      // next_attempt_at) index, skipping rows that wait for an older delivery of their group: the work is each
      // target's share, not the backlog. The due conditions are repeated on d: a row another instance claimed and
      // committed meanwhile is re-checked against them when locked (READ COMMITTED), and left alone. SKIP LOCKED
      // applies before the limit, so concurrent claims share the due rows.
      `select d.id from deliveries d
        join (
          select share.id, share.next_attempt_at, share.n
          from (select distinct t.channel, t.target_index from deliveries t
            where t.status = 'pending' and t.next_attempt_at <= $1) target
          -- A target whose receiver asked for a pause (Retry-After, on any instance) waits it out.
          left join delivery_target_pauses paused
            on paused.channel = target.channel and paused.target_index = target.target_index
              and paused.paused_until > $1
          left join json_to_recordset($4::json) as s(channel text, target_index int, free int)
            on s.channel = target.channel and s.target_index = target.target_index
          cross join lateral (
            select due.id, due.next_attempt_at, row_number() over (order by due.next_attempt_at) as n
            from deliveries due
            where due.status = 'pending' and due.channel = target.channel and due.target_index = target.target_index
              and due.next_attempt_at <= $1 and due.id <> all($5::bigint[])
              -- Found through the group's index only: IS NOT DISTINCT FROM keeps the planner from probing the
              -- target index instead (every pending row of the target, per row) when its statistics are stale.
              and not exists (select 1 from deliveries o
                where o.group_key = due.group_key and o.created_at < due.created_at
                  and (o.status, o.channel, o.target_index) is not distinct from ('pending', due.channel, due.target_index))
            order by due.next_attempt_at
            limit coalesce(s.free, $3)
          ) share
          where coalesce(s.free, $3) > 0 and paused.channel is null
        ) c on c.id = d.id
        where d.status = 'pending' and d.next_attempt_at <= $1
        order by c.n, c.next_attempt_at, c.id
        limit $2
        for update of d skip locked`,
      [
        now,
        limit,
        shares.perTarget,
        JSON.stringify(
          shares.allowances.map((a) => ({ channel: a.channel, target_index: a.targetIndex, free: a.free })),
        ),
        shares.exclude.map(String),
      ],
    );
    const claimed: ClaimedDelivery[] = [];
    const { failures } = await writeIsolated(
      sql,
      due.map((row) => row.id),
      async (ids) => {
        claimed.push(
          ...(await sql.query<ClaimedDelivery>(
            `update deliveries set attempts = attempts + 1, next_attempt_at = $1 where id = any($2::bigint[])
            returning id, channel, target_index as "targetIndex", url, body, headers,
              signing_secret as "signingSecret", attempts, max_attempts as "maxAttempts", target_type as "targetType",
              created_at as "createdAt"`,
            [new Date(now.getTime() + leaseMs), ids.map(String)],
          )),
        );
      },
    );
    return { claimed, failures };
  });
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

/**
 * Logs attempts and moves their deliveries on: one insert and one update for the whole batch, in one transaction.
 * An outcome PostgreSQL refuses is returned as a failure (the caller sets its delivery aside); the others are written.
 */
export async function recordAttempts(
  outcomes: (AttemptOutcome & { id: bigint })[],
): Promise<{ failures: Failure<bigint>[] }> {
  if (outcomes.length === 0) return { failures: [] };
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
