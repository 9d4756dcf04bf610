import type { HealthRecord } from "@/lib/contract";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { AlertContext } from "@/lib/routing/payload";
import type { OutboxEvent } from "@/lib/routing/alert-plan";
import type { StoredAlert } from "@/lib/routing/alert-rows";
import { getPrisma } from "./client";
import { isoTime, jsonRows } from "./json-rows";
import { poolSql, prepared, prismaSql, type Sql } from "./sql";
import { WAKE_CHANNELS, wakeHereAfterCommit, wakePayload } from "./wake-notify";

// Alert rows are written only by chain writers (under the chains' advisory locks), so these statements never
// wait on each other; every one is a single multi-row statement, whatever the batch size.

/** The columns of a StoredAlert, as a select list: plain statements, since they read thousands of alerts. */
export const STORED_ALERT_SQL = `fingerprint, chain_id as "chainId", session_id as "sessionId", state, severity,
  status, labels, reasons, retry_safe as "retrySafe", record_id as "recordId", confirmed_at as "confirmedAt",
  resolved_by as "resolvedBy"`;

/** Each chain's firing alerts, and its alerts resolved with a mark (see planChainAlerts). */
export async function readOpenAlertsOfChains(sql: Sql, chainIds: string[]): Promise<StoredAlert[]> {
  if (chainIds.length === 0) return [];
  return sql.query<StoredAlert>(
    `select ${STORED_ALERT_SQL} from alerts
      where chain_id = any($1::text[]) and (status = 'firing' or resolved_by is not null)`,
    [chainIds],
  );
}

/** The alerts with these fingerprints (one statement, whatever the number: Prisma's `in` costs per element). */
export async function readAlertsByFingerprint(sql: Sql, fingerprints: string[]): Promise<StoredAlert[]> {
  if (fingerprints.length === 0) return [];
  return sql.query<StoredAlert>(
    `select ${STORED_ALERT_SQL} from alerts where fingerprint = any($1::text[])`,
    [fingerprints],
  );
}

/**
 * Firing alerts that may inhibit others, at most `limit`: those in `states` (the flush: states an inhibition rule's
 * source accepts), or those of every chain but `exceptChain` (the route test).
 */
export async function readFiringAlerts(
  filter: { states: string[] } | { exceptChain: string },
  limit: number,
): Promise<StoredAlert[]> {
  const [condition, value] =
    "states" in filter ? ["state = any($1::text[])", filter.states] : ["chain_id <> $1", filter.exceptChain];
  return poolSql().query<StoredAlert>(
    `select ${STORED_ALERT_SQL} from alerts where status = 'firing' and ${condition} limit $2`,
    [value, limit],
  );
}

/**
 * Firing alerts in `states` whose labels contain one of `labelSets` (inhibitionSourceLabels), at most `limit`: the
 * inhibition sources of a flush of a few alerts, in the caller's transaction (a source it raised counts).
 */
export async function readFiringSourcesWith(
  sql: Sql,
  states: string[],
  labelSets: readonly Record<string, string>[],
  limit: number,
): Promise<StoredAlert[]> {
  if (states.length === 0 || labelSets.length === 0) return [];
  return sql.query<StoredAlert>(
    `select ${STORED_ALERT_SQL} from alerts
      where status = 'firing' and state = any($1::text[]) and labels @> any($2::jsonb[]) limit $3`,
    [states, labelSets.map((labels) => JSON.stringify(labels)), limit],
  );
}

/** The alert list: the firing alerts (or the latest resolved ones), newest first. */
export async function listAlerts(status: "firing" | "resolved", limit: number) {
  return getPrisma().alert.findMany({
    where: { status },
    orderBy: [{ startsAt: "desc" }, { fingerprint: "asc" }],
    take: limit,
  });
}

/** Record bodies by seq: the evidence an alert's context is taken from. */
export async function readRecordBodies(sql: Sql, seqs: bigint[]): Promise<Map<bigint, HealthRecord>> {
  if (seqs.length === 0) return new Map();
  const rows = await sql.query<{ seq: bigint; body: HealthRecord }>(
    "select seq, body from health_records where seq = any($1::bigint[])",
    [[...new Set(seqs)].map(String)],
  );
  return new Map(rows.map((row) => [row.seq, row.body]));
}

export type AlertRowWrite = {
  fingerprint: string;
  chainId: string;
  sessionId: string;
  state: string;
  severity: string;
  labels: Record<string, string>;
  reasons: string[];
  retrySafe: boolean | null;
  recordId: string;
  context: AlertContext;
  confirmedAt: Date | null;
};

const asJsonRow = (r: AlertRowWrite) => ({
  fingerprint: r.fingerprint,
  chain_id: r.chainId,
  session_id: r.sessionId,
  state: r.state,
  severity: r.severity,
  labels: r.labels,
  context: r.context,
  reasons: r.reasons,
  retry_safe: r.retrySafe,
  record_id: r.recordId,
  confirmed_at: isoTime(r.confirmedAt),
});

const INSERT_FIRING_ALERTS = prepared(
  "receipt_insert_firing_alerts",
  `insert into alerts (fingerprint, chain_id, session_id, state, severity, status, labels, context, reasons,
      starts_at, ends_at, updated_at, retry_safe, record_id, confirmed_at, resolved_by, assignee_user_id)
    select u.fingerprint, u.chain_id, u.session_id, u.state, u.severity, 'firing', u.labels, u.context, u.reasons,
      $2, null, $2, u.retry_safe, u.record_id, null, null,
      -- A queue state's alert starts with the assignee of the chain's item in that queue, if it has one.
      (select t.assignee_user_id from triage_items t where t.chain_id = u.chain_id and t.queue = u.state)
    from json_to_recordset($1::json) as u(fingerprint text, chain_id text,
      session_id text, state text, severity text, labels jsonb, context jsonb, reasons text[], retry_safe boolean,
      record_id text)
    on conflict (fingerprint) do update set
      session_id = excluded.session_id, severity = excluded.severity, status = 'firing', labels = excluded.labels,
      context = excluded.context, reasons = excluded.reasons, starts_at = excluded.starts_at, ends_at = null,
      updated_at = excluded.updated_at, retry_safe = excluded.retry_safe, record_id = excluded.record_id,
      confirmed_at = null, resolved_by = null,
      assignee_user_id = coalesce(alerts.assignee_user_id, excluded.assignee_user_id)`,
);

/** New alerts, or resolved ones firing again: a fresh start, no confirmation, no resolve mark. */
export async function insertFiringAlerts(sql: Sql, rows: AlertRowWrite[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await sql.execute(INSERT_FIRING_ALERTS, [jsonRows(rows.map(asJsonRow)), now]);
}

/** Firing alerts refreshed from a newer record; a confirmation, once set, stays. */
export async function refreshFiringAlerts(sql: Sql, rows: AlertRowWrite[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await sql.execute(
    `update alerts a set severity = u.severity, labels = u.labels, context = u.context, reasons = u.reasons,
      retry_safe = u.retry_safe, record_id = u.record_id, confirmed_at = coalesce(a.confirmed_at, u.confirmed_at),
      updated_at = $2
    from json_to_recordset($1::json) as u(fingerprint text, severity text,
      labels jsonb, context jsonb, reasons text[], retry_safe boolean, record_id text, confirmed_at timestamptz)
    where a.fingerprint = u.fingerprint`,
    [jsonRows(rows.map(asJsonRow)), now],
  );
}

export async function resolveAlerts(sql: Sql, fingerprints: string[], now: Date): Promise<void> {
  if (fingerprints.length === 0) return;
  await sql.execute(
    `update alerts set status = 'resolved', ends_at = $2, updated_at = $2
      where fingerprint = any($1::text[]) and status = 'firing'`,
    [fingerprints, now],
  );
}

export async function forgetResolveMarks(sql: Sql, fingerprints: string[]): Promise<void> {
  if (fingerprints.length === 0) return;
  await sql.execute("update alerts set resolved_by = null where fingerprint = any($1::text[])", [
    fingerprints,
  ]);
}

const APPEND_OUTBOX_EVENTS = prepared(
  "receipt_append_outbox_events_from",
  // The wake-up's NOTIFY in the same statement (one round trip a batch): the insert runs whatever the select reads.
  `with appended as (
      insert into alert_outbox (fingerprint, chain_id, event) select * from unnest($1::text[], $2::text[], $3::text[])
    )
    select pg_notify($4, $5)`,
);

/** One statement whatever the number of events; routing on every instance is woken when the caller commits. */
export async function appendOutboxEvents(sql: Sql, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  await sql.execute(APPEND_OUTBOX_EVENTS, [
    events.map((e) => e.fingerprint),
    events.map((e) => e.chainId),
    events.map((e) => e.event),
    WAKE_CHANNELS.alertOutbox,
    wakePayload(sql),
  ]);
  wakeHereAfterCommit(sql, WAKE_CHANNELS.alertOutbox);
}

/**
 * An operator resolves alerts by hand (the alert list, or a triage queue's "resolve"): they resolve now and carry the
 * mark, so re-evaluating the same record does not raise them again. Returns the alerts resolved.
 */
export async function resolveAlertsByOperator(
  tx: Prisma.TransactionClient,
  where: { fingerprint?: string; chainId?: string; states?: string[] },
  mark: string,
  now: Date,
): Promise<{ fingerprint: string; chainId: string }[]> {
  const rows = await tx.alert.findMany({
    where: {
      status: "firing",
      ...(where.fingerprint ? { fingerprint: where.fingerprint } : {}),
      ...(where.chainId ? { chainId: where.chainId } : {}),
      ...(where.states ? { state: { in: where.states } } : {}),
    },
    select: { fingerprint: true, chainId: true },
  });
  if (rows.length === 0) return [];
  await tx.alert.updateMany({
    where: { fingerprint: { in: rows.map((r) => r.fingerprint) }, status: "firing" },
    data: { status: "resolved", endsAt: now, updatedAt: now, resolvedBy: mark },
  });
  await appendOutboxEvents(
    prismaSql(tx),
    rows.map((r) => ({ ...r, event: "resolved" as const })),
  );
  return rows;
}
