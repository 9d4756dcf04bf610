import { type SetAside, type SetAsideJob, setItemsAside } from "../db/set-aside";
import type { Sql } from "../db/sql";
import { metrics } from "../metrics/registry";

// How a background job keeps one bad item (a chain, an alert, a group, a delivery) from failing the others: the batch
// is handled whole, as before, and only when that throws is it handled item by item, so the common case costs no
// more statements. The items that fail on their own are set aside by the caller.

export type Failure<T> = { item: T; reason: string };

/** The error's name and message, never the values a driver error may quote in its detail. */
export function failureReason(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : "unknown error";
}

// PostgreSQL error classes that say nothing about the item: connection lost (08), a deadlock or serialization
// failure (40), out of resources (53), a shutdown or a cancelled statement (57). The run fails and is tried again.
const TRANSIENT_SQLSTATE = /^(08|40|53|57)/;

function rethrowIfTransient(error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && TRANSIENT_SQLSTATE.test(code)) throw error;
}

/** `plan` over all items; when it throws, over each item alone. Returns the results of the items that planned. */
export function planIsolated<T, R>(
  items: readonly T[],
  plan: (items: readonly T[]) => R[],
): { results: R[]; failures: Failure<T>[] } {
  try {
    return { results: plan(items), failures: [] };
  } catch {
    const results: R[] = [];
    const failures: Failure<T>[] = [];
    for (const item of items) {
      try {
        results.push(...plan([item]));
      } catch (error) {
        failures.push({ item, reason: failureReason(error) });
      }
    }
    return { results, failures };
  }
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

/** Records the items as set aside in the caller's transaction, then logs and counts those that are news. */
export async function setAside(sql: Sql, job: SetAsideJob, items: readonly SetAside[]): Promise<void> {
  reportSetAside(job, items, await setItemsAside(sql, job, [...items]));
}

/** Logs each item newly set aside once (its key and the reason: no row values) and counts them. */
export function reportSetAside(
  job: SetAsideJob,
  items: readonly SetAside[],
  fresh: ReadonlySet<string>,
): void {
  const news = items.filter((item) => fresh.has(item.key));
  if (news.length === 0) return;
  // The key is an id (a chain id, a fingerprint, a group key), cut short: a group key holds label values.
  for (const item of news)
    console.error(`receipt: ${job} job set aside ${item.key.slice(0, 200)}: ${item.reason}`);
  metrics().itemsSetAside.inc({ job }, news.length);
}
