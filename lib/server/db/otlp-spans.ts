import type { OtlpSpan } from "@/lib/otlp/span";
import { jsonRows } from "./json-rows";
import { prepared, type Sql } from "./sql";

/** A redacted span as the otlp_spans table keeps it. */
export type SpanRow = {
  traceId: string;
  spanId: string;
  sessionKey: string;
  contentHash: string;
  span: OtlpSpan;
};

export const spanKey = (row: { traceId: string; spanId: string }) => `${row.traceId}/${row.spanId}`;

const LOCK_SESSIONS = prepared(
  "receipt_lock_otlp_sessions",
  `select count(pg_advisory_xact_lock(hashtextextended('otlp-session:' || k, 0)))::int as locked
      from (select unnest($1::text[]) as k order by 1) ordered`,
);

/**
 * Serialises the exports that touch the same OTLP sessions: each re-assembles a session from all its stored spans,
 * so a second export must see the first one's spans. Sorted, so two exports sharing sessions cannot deadlock.
 */
export async function lockSessions(sql: Sql, sessionKeys: string[]): Promise<void> {
  await sql.query(LOCK_SESSIONS, [[...new Set(sessionKeys)].sort()]);
}

const INSERT_SPANS = prepared(
  "receipt_insert_otlp_spans",
  `insert into otlp_spans (trace_id, span_id, session_key, content_hash, span)
    select trace_id, span_id, session_key, content_hash, span
      from json_to_recordset($1::json)
        as r(trace_id text, span_id text, session_key text, content_hash text, span jsonb)
    on conflict (trace_id, span_id) do nothing
    returning trace_id, span_id`,
);

/** Inserts an export's spans in one statement; returns the keys (`spanKey`) of those that were not stored yet. */
export async function insertSpans(sql: Sql, rows: SpanRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const sorted = [...rows].sort((a, b) => (spanKey(a) < spanKey(b) ? -1 : 1)); // one order: waits, no deadlock
  const inserted = await sql.query<{ trace_id: string; span_id: string }>(INSERT_SPANS, [
    jsonRows(
      sorted.map((row) => ({
        trace_id: row.traceId,
        span_id: row.spanId,
        session_key: row.sessionKey,
        content_hash: row.contentHash,
        span: row.span,
      })),
    ),
  ]);
  return new Set(inserted.map((row) => spanKey({ traceId: row.trace_id, spanId: row.span_id })));
}

/** The content hashes of stored spans, by `spanKey`. */
export async function readSpanHashes(
  sql: Sql,
  keys: { traceId: string; spanId: string }[],
): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await sql.query<{ trace_id: string; span_id: string; content_hash: string }>(
    `select s.trace_id, s.span_id, s.content_hash
      from otlp_spans s join unnest($1::text[], $2::text[]) as k(trace_id, span_id)
        on s.trace_id = k.trace_id and s.span_id = k.span_id`,
    [keys.map((key) => key.traceId), keys.map((key) => key.spanId)],
  );
  return new Map(
    rows.map((row) => [spanKey({ traceId: row.trace_id, spanId: row.span_id }), row.content_hash]),
  );
}

/** Every stored span of these sessions, grouped by session key, in one query. */
export async function readSpansOfSessions(sql: Sql, sessionKeys: string[]): Promise<Map<string, OtlpSpan[]>> {
  const bySession = new Map<string, OtlpSpan[]>();
  if (sessionKeys.length === 0) return bySession;
  const rows = await sql.query<{ session_key: string; span: OtlpSpan }>(
    "select session_key, span from otlp_spans where session_key = any($1::text[])",
    [sessionKeys],
  );
  for (const row of rows) {
    const list = bySession.get(row.session_key) ?? [];
    list.push(row.span);
    bySession.set(row.session_key, list);
  }
  return bySession;
}

/** Removes spans this transaction stored and then refused (their session's record was not accepted). */
export async function deleteSpans(sql: Sql, keys: { traceId: string; spanId: string }[]): Promise<void> {
  if (keys.length === 0) return;
  await sql.execute(
    `delete from otlp_spans s using unnest($1::text[], $2::text[]) as k(trace_id, span_id)
      where s.trace_id = k.trace_id and s.span_id = k.span_id`,
    [keys.map((key) => key.traceId), keys.map((key) => key.spanId)],
  );
}
