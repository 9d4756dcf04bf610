import type { HealthRecord } from "../contract/record";
import { type Decision, decide, toMs } from "./decision";
import { REASONS, type ReasonCode } from "./reasons";

/**
 * Catalog layer, rules 8–11. Freshness is judged at `ref`: the moment the tool was chosen
 * (`call.startedAt`) when there is a call, else `at`. A list change that arrives after the
 * call started did not mislead that call.
 * v1.2: when the reporter did not see tools/list (`observed.catalog` false), an absent
 * catalog is not "never read": rules 8–11 are skipped and `catalog.not_observed` is pushed.
 */
export function catalogDecision(
  record: HealthRecord,
  atMs: number,
  pathCodes: ReasonCode[],
): Decision | undefined {
  if (record.observed?.catalog === false) {
    pathCodes.push(REASONS.CATALOG_NOT_OBSERVED);
    return undefined;
  }
  const { catalog, call } = record;
  // 8.
  if (catalog === undefined) return decide("stale_catalog", REASONS.CATALOG_NOT_READ);
  // 9.
  if (!catalog.complete) return decide("stale_catalog", REASONS.CATALOG_INCOMPLETE);
  const refMs = call === undefined ? atMs : toMs(call.startedAt);
  const refreshedMs = toMs(catalog.refreshedAt);
  // 10. A change notice at exactly refreshedAt is covered by that refresh; one at exactly ref counts.
  const changedSinceRefresh = catalog.listChangedAt.some((changedAt) => {
    const changedMs = toMs(changedAt);
    return changedMs > refreshedMs && changedMs <= refMs;
  });
  if (changedSinceRefresh) return decide("stale_catalog", REASONS.CATALOG_CHANGED_SINCE_REFRESH);
  // 11. Inclusive: exactly at refreshedAt + ttlMs the cached list is still good.
  if (catalog.ttlMs !== undefined && refMs > refreshedMs + catalog.ttlMs) {
    return decide("stale_catalog", REASONS.CATALOG_EXPIRED);
  }
  return undefined;
}
