import { prepared, type Sql } from "./sql";

/**
 * Transaction-scoped advisory locks on a family of keys (chains with record ids, OTLP sessions), taken so that the
 * lock table can never run out whatever a request holds. PostgreSQL's lock table is shared by every backend and
 * sized by `max_locks_per_transaction` × `max_connections` (64 × 100 by default): one export locking a key per
 * session, chain and record ran it out ("out of shared memory") and failed every other writer meanwhile. A
 * transaction locks its keys one by one, under the family's lock held shared, up to a thirty-second of that table
 * (at least MAX_EXACT_KEYS); past that it takes the family's lock exclusively instead, which stands for every key of
 * the family: the other writers of the family wait for it (they are not refused), and the locks a transaction holds
 * stay bounded. The limit comes from the server's own settings, so a server with a larger table (the embedded one:
 * lib/server/db/embedded.ts) lets batches of a thousand records (two thousand keys) run side by side instead of one
 * after the other.
 */
export const MAX_EXACT_KEYS = 512;

export type LockFamily = "chains" | "otlp-sessions" | "notification-groups";

// The two-integer form of advisory lock keys is a key space apart from the one-bigint form the exact keys use
// (`hashtextextended`), so a family's lock never collides with a key. Families are taken in this order (sessions,
// then chains, then notification groups), each before its keys, so two transactions cannot deadlock on them.
const LOCK_CLASS = 0x52435054; // "RCPT"
const FAMILY_IDS: Record<LockFamily, number> = { "otlp-sessions": 1, chains: 2, "notification-groups": 3 };

const TRY_LOCK_FAMILY_SHARED = prepared(
  "receipt_try_lock_family_shared",
  "select pg_try_advisory_xact_lock_shared($1::int, $2::int) as locked",
);

// One round trip: the limit read from the server's settings, the family's lock (exclusive past the limit, else
// shared), then the keys in the array's order unless the family's lock stands for them. `family` is materialised and
// the keys' count reads it, so the family's lock is always taken first.
const LOCK_FAMILY_AND_KEYS = prepared(
  "receipt_lock_family_and_keys",
  `with lock_limit as materialized (
    select greatest($4::int, current_setting('max_locks_per_transaction')::int
      * (current_setting('max_connections')::int + current_setting('max_prepared_transactions')::int) / 32) as n),
  family as materialized (
    select cardinality($3::text[]) > n as whole,
      case when cardinality($3::text[]) > n then pg_advisory_xact_lock($1::int, $2::int)::text
        else pg_advisory_xact_lock_shared($1::int, $2::int)::text end as locked
    from lock_limit)
  select f.whole, (select count(pg_advisory_xact_lock(hashtextextended(k, 0)))::int
      from (select k from unnest($3::text[]) with ordinality as t(k, i) where not f.whole order by i) ordered) as keys
    from family f`,
);

/**
 * Locks `keys` (distinct, in the order every writer of the family uses) until the transaction ends. The mode is a
 * function of the key count and the server's settings only, so a transaction locking the same keys again gets the
 * same locks back. True when the family's lock was taken exclusively for them.
 */
export async function lockKeys(sql: Sql, family: LockFamily, keys: readonly string[]): Promise<boolean> {
  if (keys.length === 0) return false;
  const [row] = await sql.query<{ whole: boolean }>(LOCK_FAMILY_AND_KEYS, [
    LOCK_CLASS,
    FAMILY_IDS[family],
    keys,
    MAX_EXACT_KEYS,
  ]);
  return row?.whole ?? false;
}

/**
 * For a writer that skips what is busy rather than waiting (the deadline worker, retention): the family's lock
 * shared if no transaction holds it exclusively now. False: skip the whole family this time.
 */
export async function tryLockFamilyShared(sql: Sql, family: LockFamily): Promise<boolean> {
  const [row] = await sql.query<{ locked: boolean }>(TRY_LOCK_FAMILY_SHARED, [
    LOCK_CLASS,
    FAMILY_IDS[family],
  ]);
  return row?.locked ?? false;
}
