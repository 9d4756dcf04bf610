import type { Sql } from "./sql";

// Writes of a batch that keep one bad item from failing the others (see lib/server/worker/isolate.ts for the jobs'
// side): the batch is written whole, as before, and only when that fails item by item, each under a savepoint.

export type Failure<T> = { item: T; reason: string };

/** The error's name and message, never the values a driver error may quote in its detail. */
export function failureReason(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : "unknown error";
}

// PostgreSQL error classes that say nothing about the item: connection lost (08), a deadlock or serialization
// failure (40), out of resources (53), a shutdown or a cancelled statement (57). The run fails and is tried again.
const TRANSIENT_SQLSTATE = /^(08|40|53|57)/;

export function rethrowIfTransient(error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && TRANSIENT_SQLSTATE.test(code)) throw error;
}

/**
 * `write` of all items under one savepoint of the caller's transaction; when PostgreSQL or the code refuses it, the
 * batch is undone and each item is written under its own savepoint. Returns the items written and those that failed
 * alone. A transient error (see above) or a broken connection fails the whole run instead: it says nothing about the
 * items.
 */
export async function writeIsolated<T>(
  sql: Sql,
  items: readonly T[],
  write: (items: readonly T[]) => Promise<void>,
): Promise<{ written: T[]; failures: Failure<T>[] }> {
  if (items.length === 0) return { written: [], failures: [] };
  const attempt = async (some: readonly T[]): Promise<unknown> => {
    await sql.execute("savepoint receipt_isolated_write");
    try {
      await write(some);
      await sql.execute("release savepoint receipt_isolated_write");
      return undefined;
    } catch (error) {
      rethrowIfTransient(error);
      await sql.execute("rollback to savepoint receipt_isolated_write");
      await sql.execute("release savepoint receipt_isolated_write");
      return error ?? new Error("unknown error");
    }
  };
  if ((await attempt(items)) === undefined) return { written: [...items], failures: [] };
  const written: T[] = [];
  const failures: Failure<T>[] = [];
  for (const item of items) {
    const error = await attempt([item]);
    if (error === undefined) written.push(item);
    else failures.push({ item, reason: failureReason(error) });
  }
  return { written, failures };
}

/** How a transaction writes its batch: `writeIsolated`, or whole without a savepoint (`withWholeWritesFirst`). */
export type BatchWriter = <T>(
  sql: Sql,
  items: readonly T[],
  write: (items: readonly T[]) => Promise<void>,
) => Promise<{ written: T[]; failures: Failure<T>[] }>;

/** A batch written whole was refused: the transaction is aborted, and runs again writing item by item. */
class WholeBatchRefused extends Error {}

const writeWhole: BatchWriter = async (_sql, items, write) => {
  if (items.length === 0) return { written: [], failures: [] };
  try {
    await write(items);
  } catch (error) {
    rethrowIfTransient(error);
    throw new WholeBatchRefused("the batch was refused whole");
  }
  return { written: [...items], failures: [] };
};

/**
 * Runs `transaction` (which must open its own) with a writer that writes the batch whole, without the savepoint
 * and its release: two round trips fewer on the common path. When PostgreSQL or the code refuses that batch, the
 * transaction has rolled back, and it runs once more with `writeIsolated`, which sets the refused items apart. Work
 * the transaction did before the write is done again then (it must be safe to repeat, as a rolled-back one is).
 */
export async function withWholeWritesFirst<R>(transaction: (write: BatchWriter) => Promise<R>): Promise<R> {
  try {
    return await transaction(writeWhole);
  } catch (error) {
    if (!(error instanceof WholeBatchRefused)) throw error;
  }
  return transaction(writeIsolated);
}
