import type { AttemptCount } from "@/lib/auth/sign-in-backoff";
import type { Prisma } from "@/lib/generated/prisma/client";
import { getPrisma } from "./client";
import type { Sql } from "./sql";

type Row = { key: string; failures: number; locked_until: Date | null; last_attempt_at: Date };

/**
 * Locks the throttle rows of `keys` (created when missing) for the rest of the transaction, in key order so two
 * attempts never wait on each other crosswise, and returns them with the database's clock.
 */
async function lockCounts(tx: Prisma.TransactionClient, keys: string[]) {
  const sorted = [...keys].sort();
  const [{ now }] = await tx.$queryRaw<[{ now: Date }]>`select now() as now`;
  await tx.$executeRaw`
    insert into sign_in_throttle (key, failures, last_attempt_at)
    select key, 0, ${now} from unnest(${sorted}::text[]) as key
    on conflict (key) do nothing`;
  const rows = await tx.$queryRaw<Row[]>`
    select key, failures, locked_until, last_attempt_at from sign_in_throttle
    where key = any(${sorted}::text[]) order by key for update`;
  const counts = new Map<string, AttemptCount>(
    rows.map((row) => [
      row.key,
      { failures: row.failures, lockedUntil: row.locked_until, lastAttemptAt: row.last_attempt_at },
    ]),
  );
  return { now, counts };
}

const writeCount = (tx: Prisma.TransactionClient, key: string, count: AttemptCount) =>
  tx.signInThrottle.update({
    where: { key },
    data: { failures: count.failures, lockedUntil: count.lockedUntil, lastAttemptAt: count.lastAttemptAt },
  });

/**
 * One transaction over the counts of `keys`: `decide` sees each count (null when new) and the database's time and
 * returns the counts to store, or null to store nothing. Several app instances share these rows, so the row lock
 * is what makes the read-decide-write of one attempt atomic.
 */
export async function updateSignInCounts<T>(
  keys: string[],
  decide: (
    counts: Map<string, AttemptCount | null>,
    now: Date,
  ) => { result: T; write: Map<string, AttemptCount | null> | null },
): Promise<T> {
  return getPrisma().$transaction(async (tx) => {
    const { now, counts } = await lockCounts(tx, keys);
    const seen = new Map<string, AttemptCount | null>(
      keys.map((key) => {
        const count = counts.get(key);
        // A row just created holds no failure yet: the same as no row.
        return [key, count && count.failures > 0 ? count : null];
      }),
    );
    const { result, write } = decide(seen, now);
    for (const key of keys) {
      const count = write?.get(key) ?? null;
      if (count && count.failures > 0) await writeCount(tx, key, count);
      // A count of nothing is no row: a refused attempt leaves none of the rows it made for its lock behind.
      else if (write?.has(key) || !seen.get(key)) await tx.signInThrottle.delete({ where: { key } });
    }
    return result;
  });
}

/** Drops the counts nobody added to since `before` (their locks ended long ago): failed guesses at made-up names. */
export async function deleteStaleSignInCounts(before: Date): Promise<void> {
  await getPrisma().signInThrottle.deleteMany({ where: { lastAttemptAt: { lt: before } } });
}

/**
 * Retention's bounded form of deleteStaleSignInCounts, so counts go even when no sign-in fails for a long time: up
 * to `limit` rows last added to before `before`, oldest first. Returns how many went.
 */
export async function deleteForgottenSignInCounts(sql: Sql, before: Date, limit: number): Promise<number> {
  return sql.execute(
    `delete from sign_in_throttle where key = any(array(
      select key from sign_in_throttle where last_attempt_at < $1::timestamptz
        order by last_attempt_at limit $2::int for update skip locked))`,
    [before.toISOString(), limit],
  );
}
