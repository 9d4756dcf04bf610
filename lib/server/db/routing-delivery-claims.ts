import { type Failure, isTransientError, writeIsolated } from "./isolated-writes";
import { onOneConnection, prepared, type Sql, type TransactionOn } from "./sql";

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

// Per target with due rows, its share is read in order from the (status, channel, target_index, next_attempt_at)
// index, skipping rows that wait for an older delivery of their group: the work is each target's share, not the
// backlog. The due conditions are repeated on d: a row another instance claimed and committed meanwhile is re-checked
// against them when locked (READ COMMITTED), and left alone. SKIP LOCKED applies before the limit, so concurrent claims
// share the due rows. $1 now, $2 limit, $3 the share per target, $4 allowances (json), $5 ids excluded.
const DUE_ROWS = `select d.id from deliveries d
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
  for update of d skip locked`;

const CLAIMED_COLUMNS = `d.id, d.channel, d.target_index as "targetIndex", d.url, d.body, d.headers,
  d.signing_secret as "signingSecret", d.attempts, d.max_attempts as "maxAttempts", d.target_type as "targetType",
  d.created_at as "createdAt"`;

// The claim in one statement, the rows locked by the CTE and leased by the update: one round trip, where the
// transaction that isolates a refused row takes six. Planned each time, not prepared: a backlog changes the table by
// orders of magnitude between two claims, and a generic plan made on an empty one would outlive it.
const CLAIM = `with due as (${DUE_ROWS})
  update deliveries d set attempts = d.attempts + 1, next_attempt_at = $6
    from due where d.id = due.id
  returning ${CLAIMED_COLUMNS}`;

// Deliveries this instance just inserted, claimed by id under the same rules as DUE_ROWS (due, their target not
// paused, no older pending delivery of their group to the same target), without reading any target's backlog.
// $1 ids, $2 now, $3 the lease's end.
const CLAIM_BY_ID = prepared(
  "receipt_claim_deliveries_by_id",
  `with mine as (
    select d.id from deliveries d
    where d.id = any($1::bigint[]) and d.status = 'pending' and d.next_attempt_at <= $2
      and not exists (select 1 from delivery_target_pauses paused
        where paused.channel = d.channel and paused.target_index = d.target_index and paused.paused_until > $2)
      and not exists (select 1 from deliveries o
        where o.group_key = d.group_key and o.created_at < d.created_at
          and (o.status, o.channel, o.target_index) is not distinct from ('pending', d.channel, d.target_index))
    for update of d skip locked
  )
  update deliveries d set attempts = d.attempts + 1, next_attempt_at = $3
    from mine where d.id = mine.id
  returning ${CLAIMED_COLUMNS}`,
);

/**
 * Claims these deliveries, by id, for one attempt each (the lease as claimDueDeliveries's). Those another instance
 * claimed first, or that must wait (an older delivery of their group, a paused target), are left for the due claim.
 */
export async function claimDeliveriesById(
  ids: bigint[],
  now: Date,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  // On one connection: when PostgreSQL refuses the claim, the due claim the caller runs next finds its rows free.
  return onOneConnection((sql) =>
    sql.query<ClaimedDelivery>(CLAIM_BY_ID, [ids.map(String), now, new Date(now.getTime() + leaseMs)]),
  );
}

/**
 * Claims due deliveries for one attempt each: the attempt counter and a lease (nextAttemptAt in the future) are
 * written in the statement that picks the rows with SKIP LOCKED, so no other instance can pick them until the lease
 * ends — a crash mid-send is retried after it, a normal send records its outcome long before.
 * A delivery waits while an older notification of the same group to the same target is still pending, so a
 * receiver never sees a group's "resolved" before its "firing". Each target gets at most its share, and the rows are
 * taken round-robin across targets (every target's first due delivery before any target's second), so one target's
 * backlog never sits at the head of another's line. When PostgreSQL refuses the claim, the rows are claimed again in
 * a transaction one by one: the delivery it refuses is returned as a failure (the caller sets it aside), and the
 * others are claimed.
 */
export async function claimDueDeliveries(
  now: Date,
  leaseMs: number,
  limit: number,
  shares: ClaimShares = { perTarget: 1_000_000_000, allowances: [], exclude: [] },
): Promise<{ claimed: ClaimedDelivery[]; failures: Failure<bigint>[] }> {
  if (limit <= 0) return { claimed: [], failures: [] };
  const values = [...claimParameters(now, limit, shares), new Date(now.getTime() + leaseMs)];
  // Both tries on one connection: the rows a refused claim locked are free again when the item-by-item one looks
  // (SKIP LOCKED would pass over them on another connection, and they would wait for the next claim).
  return onOneConnection(async (sql, transaction) => {
    try {
      return { claimed: await sql.query<ClaimedDelivery>(CLAIM, values), failures: [] };
    } catch (error) {
      if (isTransientError(error)) throw error;
      return claimIsolated(transaction, now, leaseMs, limit, shares);
    }
  });
}

function claimParameters(now: Date, limit: number, shares: ClaimShares): unknown[] {
  return [
    now,
    limit,
    shares.perTarget,
    JSON.stringify(
      shares.allowances.map((a) => ({ channel: a.channel, target_index: a.targetIndex, free: a.free })),
    ),
    shares.exclude.map(String),
  ];
}

/** The claim in a transaction: the due rows locked, then leased under a savepoint, one by one if the batch fails. */
function claimIsolated(
  transaction: TransactionOn,
  now: Date,
  leaseMs: number,
  limit: number,
  shares: ClaimShares,
) {
  return transaction(async (sql: Sql) => {
    const due = await sql.query<{ id: bigint }>(DUE_ROWS, claimParameters(now, limit, shares));
    const claimed: ClaimedDelivery[] = [];
    const { failures } = await writeIsolated(
      sql,
      due.map((row) => row.id),
      async (ids) => {
        claimed.push(
          ...(await sql.query<ClaimedDelivery>(
            `update deliveries d set attempts = attempts + 1, next_attempt_at = $1 where id = any($2::bigint[])
            returning ${CLAIMED_COLUMNS}`,
            [new Date(now.getTime() + leaseMs), ids.map(String)],
          )),
        );
      },
    );
    return { claimed, failures };
  });
}
