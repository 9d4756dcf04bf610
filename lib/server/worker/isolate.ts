import { type SetAside, type SetAsideJob, setItemsAside } from "../db/set-aside";
import { type Failure, failureReason } from "../db/isolated-writes";
import type { Sql } from "../db/sql";
import { metrics } from "../metrics/registry";

// How a background job keeps one bad item (a chain, an alert, a group, a delivery) from failing the others: the batch
// is handled whole, as before, and only when that throws is it handled item by item, so the common case costs no
// more statements. The items that fail on their own are set aside by the caller (writes: db/isolated-writes.ts).

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
