import { prepared, type Sql } from "./sql";

/**
 * Transaction-scoped advisory locks on a family of keys (chains with record ids, OTLP sessions), taken so that the
 * lock table can never run out whatever a request holds. PostgreSQL's lock table is shared by every backend and
 * sized by `max_locks_per_transaction` (64 a connection by default): one export locking a key per session, chain
 * and record ran it out ("out of shared memory") and failed every other writer meanwhile. A transaction locks its
 * keys one by one only up to MAX_EXACT_KEYS, under the family's lock held shared; past that it takes the family's
 * lock exclusively instead, which stands for every key of the family: the other writers of the family wait for it
 * (they are not refused), and the locks a transaction holds stay bounded.
 */
export const MAX_EXACT_KEYS = 512;

export type LockFamily = "chains" | "otlp-sessions";

// The two-integer form of advisory lock keys is a key space apart from the one-bigint form the exact keys use
// (`hashtextextended`), so a family's lock never collides with a key. Families are taken in this order (sessions,
// then chains), each before its keys, so two transactions cannot deadlock on them.
const LOCK_CLASS = 0x52435054; // "RCPT"
const FAMILY_IDS: Record<LockFamily, number> = { "otlp-sessions": 1, chains: 2 };

const LOCK_FAMILY_SHARED = prepared(
  "receipt_lock_family_shared",
  "select pg_advisory_xact_lock_shared($1::int, $2::int)::text as locked",
);
const LOCK_FAMILY_EXCLUSIVE = prepared(
  "receipt_lock_family_exclusive",
  "select pg_advisory_xact_lock($1::int, $2::int)::text as locked",
);
const TRY_LOCK_FAMILY_SHARED = prepared(
  "receipt_try_lock_family_shared",
  "select pg_try_advisory_xact_lock_shared($1::int, $2::int) as locked",
);
// The keys are locked in the array's order.
const LOCK_KEYS_IN_ORDER = prepared(
  "receipt_lock_keys_in_order",
  `select count(pg_advisory_xact_lock(hashtextextended(k, 0)))::int as locked
      from (select k from unnest($1::text[]) with ordinality as t(k, i) order by i) ordered`,
);

/**
 * Locks `keys` (distinct, in the order every writer of the family uses) until the transaction ends. The mode is a
 * function of the key count only, so a transaction locking the same keys again gets the same locks back.
 */
export async function lockKeys(sql: Sql, family: LockFamily, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const familyKey = [LOCK_CLASS, FAMILY_IDS[family]];
  if (keys.length > MAX_EXACT_KEYS) {
    await sql.query(LOCK_FAMILY_EXCLUSIVE, familyKey);
    return;
  }
  await sql.query(LOCK_FAMILY_SHARED, familyKey);
  await sql.query(LOCK_KEYS_IN_ORDER, [keys]);
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
