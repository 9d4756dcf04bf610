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

/** An error that says nothing about the rows (see above): the run fails and is tried again. */
export function isTransientError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && TRANSIENT_SQLSTATE.test(code);
}

function rethrowIfTransient(error: unknown): void {
  if (isTransientError(error)) throw error;
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
