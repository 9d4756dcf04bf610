import type { HealthRecord } from "@/lib/contract";
import { alertContextFromRecord } from "@/lib/routing/context";
import {
  type AlertRowWrite,
  appendOutboxEvents,
  forgetResolveMarks,
  insertFiringAlerts,
  readOpenAlertsOfChains,
  readRecordBodies,
  refreshFiringAlerts,
  resolveAlerts,
} from "../db/routing-alerts";
import {
  confirmStaleSessions,
  resolveRediscoveredSessions,
  type SessionRecord,
  sessionsWithStaleCatalogAlerts,
} from "../db/routing-rediscovery";
import type { Sql } from "../db/sql";
import { routeAtCommit } from "./route-at-commit";
import type { ChainRow } from "@/lib/chains/transitions";
import { type AlertWrite, planChainAlerts } from "@/lib/routing/alert-plan";

// States decided before the catalog layer: a record in one of them says nothing about the session's tool list.
const BEFORE_CATALOG = new Set(["needs_auth", "incompatible_session", "stale_catalog"]);

/**
 * Called in the same transaction as every write of chain state (ingestion, deadline re-classification,
 * reconciliation), so an alert event exists exactly when the state change it reports was committed: none lost if
 * the process dies after commit, none sent for a rolled-back change. Alerts are diffed against each chain's open
 * alerts; the changes are routed in this transaction (route-at-commit.ts) or the outbox gets one event per change
 * for the routing job; delivery happens after the commit, in the background worker.
 * A constant number of statements per batch, whatever its size.
 */
export async function enqueueAlertEvents(
  sql: Sql,
  rows: ChainRow[],
  /** The rows' current records by seq when the caller has them; others are read back from health_records. */
  records?: ReadonlyMap<bigint, HealthRecord>,
  /** Chains created in this transaction, which cannot have alerts yet. */
  newChains?: ReadonlySet<string>,
): Promise<void> {
  if (rows.length === 0) return;
  const now = new Date();
  const stored = await readOpenAlertsOfChains(
    sql,
    rows.map((row) => row.chainId).filter((chainId) => !newChains?.has(chainId)),
  );
  const plan = planChainAlerts(rows, stored);
  const writes = [...plan.opened, ...plan.refreshed];
  const bodies = new Map(records);
  for (const [seq, body] of await readRecordBodies(
    sql,
    writes.map((w) => w.recordSeq).filter((seq) => !bodies.has(seq)),
  ))
    bodies.set(seq, body);
  const toRow = (write: AlertWrite): AlertRowWrite => {
    const body = bodies.get(write.recordSeq);
    const { alert } = write;
    return {
      fingerprint: alert.fingerprint,
      chainId: alert.chainId,
      sessionId: alert.sessionId,
      state: alert.state,
      severity: alert.severity,
      labels: { ...alert.labels },
      reasons: alert.reasons,
      retrySafe: alert.retrySafe ?? null,
      recordId: write.recordId,
      context: body ? alertContextFromRecord(body) : {},
      confirmedAt: write.confirm ? now : null,
    };
  };
  await insertFiringAlerts(sql, plan.opened.map(toRow), now);
  await refreshFiringAlerts(sql, plan.refreshed.map(toRow), now);
  await resolveAlerts(sql, plan.resolved, now);
  await forgetResolveMarks(sql, plan.unmarked);
  await applyBoundedRediscovery(sql, rows, now);
  // Last, so the rediscovery's confirmations above are part of what is routed.
  const routedHere = await routeAtCommit(
    sql,
    writes.map((write) => write.alert),
    now,
  );
  await appendOutboxEvents(
    sql,
    plan.events.filter((event) => !routedHere.has(event.fingerprint)),
  );
}

/** stale_catalog's bounded re-discovery, across the chains of one session (see routing-rediscovery.ts). */
async function applyBoundedRediscovery(sql: Sql, rows: ChainRow[], now: Date) {
  const asRecord = (row: ChainRow): SessionRecord => ({
    chainId: row.chainId,
    sessionId: row.sessionId,
    serverName: row.serverName,
    observedAt: row.observedAt,
  });
  // After the writes above, so alerts opened in this very batch take part.
  const sessions = await sessionsWithStaleCatalogAlerts(
    sql,
    rows.map((row) => row.sessionId),
  );
  if (sessions.size === 0) return;
  const concerned = rows.filter((row) => sessions.has(row.sessionId));
  const stale = concerned.filter((row) => row.state === "stale_catalog").map(asRecord);
  const pastCatalog = concerned.filter((row) => !BEFORE_CATALOG.has(row.state)).map(asRecord);
  // A confirmation is stamped a millisecond after `now` because it must come after the alert it confirms started
  // (alertReadyAt).
  await confirmStaleSessions(sql, stale, new Date(now.getTime() + 1));
  await resolveRediscoveredSessions(sql, pastCatalog, now);
}
