import { getPool } from "./client";

/**
 * Runs `work` while this instance holds the session-level advisory lock `name`, or returns `idle` at once when another
 * instance holds it. A session lock on a connection of its own, not a transaction: the work may take minutes of
 * network reads, and a transaction left open that long would hold back vacuum.
 */
export async function withJobLock<T>(name: string, idle: T, work: () => Promise<T>): Promise<T> {
  const client = await getPool().connect();
  let broken: Error | undefined;
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      "select pg_try_advisory_lock(hashtextextended($1, 0)) as locked",
      [name],
    );
    if (!rows[0]?.locked) return idle;
    try {
      return await work();
    } finally {
      await client
        .query("select pg_advisory_unlock(hashtextextended($1, 0))", [name])
        .catch((error: Error) => {
          broken = error; // the lock goes with the connection, which the pool must then drop
        });
    }
  } finally {
    client.release(broken);
  }
}
