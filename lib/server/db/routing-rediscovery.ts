import { isoTime, jsonRows } from "./json-rows";
import type { Sql } from "./sql";

/** A newly written chain row, seen as "the session's next record" for stale_catalog's bounded re-discovery. */
export type SessionRecord = {
  chainId: string;
  sessionId: string;
  serverName: string | null;
  observedAt: Date;
};

const sourceRows = (records: SessionRecord[]) =>
  jsonRows(
    records.map((r) => ({
      chain_id: r.chainId,
      session_id: r.sessionId,
      server_name: r.serverName,
      observed_at: isoTime(r.observedAt),
    })),
  );

const SOURCE = `src as (select * from json_to_recordset($1::json)
  as u(chain_id text, session_id text, server_name text, observed_at timestamptz))`;

// Both statements touch alerts of OTHER chains than the ones this transaction holds locks for, so they take those
// rows with SKIP LOCKED: an alert being written by another transaction right now is skipped, never waited for
// (waiting could deadlock two ingestion batches of one session). Each writes its outbox events in the same
// statement.

/**
 * The sessions among these with a firing stale_catalog alert: the only ones either statement below can change. A
 * cheap index probe first, because the statements themselves cost more to plan than to run, and most batches have
 * no such session.
 */
export async function sessionsWithStaleCatalogAlerts(sql: Sql, sessionIds: string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await sql.query<{ session_id: string }>(
    `select distinct session_id from alerts
      where session_id = any($1::text[]) and state = 'stale_catalog' and status = 'firing'`,
    [[...new Set(sessionIds)]],
  );
  return new Set(rows.map((row) => row.session_id));
}

/**
 * The session is still stale on its next record: a newer record of the same session and server, in another chain,
 * is stale_catalog too. Confirms those sessions' waiting stale_catalog alerts (ends a confirmOnNextRecord delay).
 */
export async function confirmStaleSessions(sql: Sql, records: SessionRecord[], now: Date): Promise<number> {
  if (records.length === 0) return 0;
  return sql.execute(
    `with ${SOURCE},
    target as (
      select a.fingerprint from alerts a
        join chains ch on ch.chain_id = a.chain_id
        join src on src.session_id = a.session_id and src.server_name is not distinct from ch.server_name
      where a.state = 'stale_catalog' and a.status = 'firing' and a.confirmed_at is null
        and a.chain_id <> src.chain_id and ch.observed_at < src.observed_at
      for update of a skip locked),
    confirmed as (
      update alerts set confirmed_at = $2, updated_at = $2
      where fingerprint in (select fingerprint from target) returning fingerprint, chain_id)
    insert into alert_outbox (fingerprint, chain_id, event) select fingerprint, chain_id, 'updated' from confirmed`,
    [sourceRows(records), now],
  );
}

/**
 * The bounded re-discovery worked: a newer record of the same session and server got past the catalog layer
 * (any state but needs_auth, incompatible_session and stale_catalog). Resolves that session's stale_catalog alerts
 * with the mark "rediscovery", so re-evaluating the same old record does not raise them again.
 */
export async function resolveRediscoveredSessions(
  sql: Sql,
  records: SessionRecord[],
  now: Date,
): Promise<number> {
  if (records.length === 0) return 0;
  return sql.execute(
    `with ${SOURCE},
    target as (
      select a.fingerprint from alerts a
        join chains ch on ch.chain_id = a.chain_id
        join src on src.session_id = a.session_id and src.server_name is not distinct from ch.server_name
      where a.state = 'stale_catalog' and a.status = 'firing'
        and a.chain_id <> src.chain_id and ch.observed_at < src.observed_at
      for update of a skip locked),
    resolved as (
      update alerts set status = 'resolved', ends_at = $2, updated_at = $2, resolved_by = 'rediscovery'
      where fingerprint in (select fingerprint from target) returning fingerprint, chain_id)
    insert into alert_outbox (fingerprint, chain_id, event) select fingerprint, chain_id, 'resolved' from resolved`,
    [sourceRows(records), now],
  );
}
