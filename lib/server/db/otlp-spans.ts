import type { SpanRole } from "@/lib/otlp";
import type { OtlpSpan } from "@/lib/otlp/span";
import { copyField, copyRow } from "./copy-text";
import { lockKeys, MAX_EXACT_KEYS, tryLockFamilyShared } from "./key-locks";
import type { Sql, TransactionSql } from "./sql";

/** A redacted span as the otlp_spans table keeps it. */
export type SpanRow = {
  traceId: string;
  spanId: string;
  sessionKey: string;
  contentHash: string;
  /** What of its session the span can change (lib/otlp/span-role.ts). */
  role: SpanRole;
  span: OtlpSpan;
  /** `span` as stored (JSON text). */
  json: string;
};

export const spanKey = (row: { traceId: string; spanId: string }) => `${row.traceId}/${row.spanId}`;

/**
 * Serialises the exports that touch the same OTLP sessions: each re-assembles a session from its stored spans, so
 * a second export must see the first one's spans. Sorted, so two exports sharing sessions cannot deadlock; past
 * MAX_EXACT_KEYS sessions the family's lock stands for them all (lib/server/db/key-locks.ts).
 */
export async function lockSessions(sql: Sql, sessionKeys: string[]): Promise<void> {
  await lockKeys(
    sql,
    "otlp-sessions",
    [...new Set(sessionKeys)].sort().map((key) => `otlp-session:${key}`),
  );
}

/** A span of the export is stored already: the caller runs the transaction again with `insertSpans`. */
export const isSpanStoredAlready = (error: unknown) =>
  error instanceof Error &&
  (error as { code?: string }).code === "23505" &&
  (error as { constraint?: string }).constraint === "otlp_spans_pkey";

/**
 * The first try's load: COPY, the cheapest PostgreSQL has (no array parameters to escape and parse, no statement to
 * plan). It cannot skip a stored span, so a re-sent or conflicting span fails the transaction, which then runs
 * again with `insertSpans`. Rows go in key order, so two exports sharing spans wait for each other, never deadlock.
 */
export async function copySpans(sql: TransactionSql, rows: SpanRow[]): Promise<void> {
  const keyed = rows.map((row) => ({ key: spanKey(row), row }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : 1));
  // One COPY a thousand rows: the text of an export of thousands, made at once, held the event loop.
  for (let first = 0; first < keyed.length; first += ROWS_A_COPY) {
    const text = keyed
      .slice(first, first + ROWS_A_COPY)
      .map(({ row }) =>
        copyRow([
          copyField(row.traceId),
          copyField(row.spanId),
          copyField(row.sessionKey),
          copyField(row.contentHash),
          copyField(row.role),
          copyField(row.json),
        ]),
      )
      .join("");
    await sql.copyIn(
      "copy otlp_spans (trace_id, span_id, session_key, content_hash, role, span) from stdin",
      text,
    );
  }
}

const ROWS_A_COPY = 1000;

/** A stored span as a session's re-assembly reads it. */
export type StoredSpan = {
  sessionKey: string;
  traceId: string;
  spanId: string;
  role: string;
  span: OtlpSpan;
};

type StoredSpanRow = { session_key: string; trace_id: string; span_id: string; role: string; span: OtlpSpan };
const storedSpan = (row: StoredSpanRow): StoredSpan => ({
  sessionKey: row.session_key,
  traceId: row.trace_id,
  spanId: row.span_id,
  role: row.role,
  span: row.span,
});

/** How many spans each of these sessions holds (this transaction's own included), by session key. */
export async function countSessionSpans(sql: Sql, sessionKeys: string[]): Promise<Map<string, number>> {
  const rows = await sql.query<{ session_key: string; spans: number }>(
    `select session_key, count(*)::int as spans from otlp_spans where session_key = any($1::text[])
      group by session_key`,
    [[...new Set(sessionKeys)]],
  );
  return new Map(rows.map((row) => [row.session_key, row.spans]));
}

/**
 * What re-assembling the chains of `traceIds` in these sessions reads: every span of the sessions that is not
 * `local` (otlp_spans_session_context_idx), and the `local` spans of those traces (the primary key).
 */
export async function readSessionContext(
  sql: Sql,
  sessionKeys: string[],
  traceIds: string[],
): Promise<StoredSpan[]> {
  const rows = await sql.query<StoredSpanRow>(
    `select session_key, trace_id, span_id, role, span from otlp_spans
        where session_key = any($1::text[]) and role <> 'local'
      union all
      select session_key, trace_id, span_id, role, span from otlp_spans
        where trace_id = any($2::text[]) and session_key = any($1::text[]) and role = 'local'`,
    [[...new Set(sessionKeys)], [...new Set(traceIds)]],
  );
  return rows.map(storedSpan);
}

/** Every span stored in these sessions. */
export async function readSessionSpans(sql: Sql, sessionKeys: string[]): Promise<StoredSpan[]> {
  if (sessionKeys.length === 0) return [];
  const rows = await sql.query<StoredSpanRow>(
    "select session_key, trace_id, span_id, role, span from otlp_spans where session_key = any($1::text[])",
    [[...new Set(sessionKeys)]],
  );
  return rows.map(storedSpan);
}

// Planned on every call, not prepared: its reads' best plan depends on the table's size (docs/ARCHITECTURE.md).
const INSERT_SPANS = `with input as (
      select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::json[])
        as r(trace_id, span_id, session_key, content_hash, role, span)
    ), inserted as (
      insert into otlp_spans (trace_id, span_id, session_key, content_hash, role, span)
        select trace_id, span_id, session_key, content_hash, role, span from input order by trace_id, span_id
        on conflict (trace_id, span_id) do nothing
        returning trace_id, span_id
    )
    select 'inserted' as kind, trace_id, span_id, null::text as content_hash from inserted
    union all
    select 'same ids', s.trace_id, s.span_id, s.content_hash
      from otlp_spans s join input i on s.trace_id = i.trace_id and s.span_id = i.span_id`;

export type InsertedSpans = {
  /** Keys (`spanKey`) of the rows this statement stored. */
  inserted: Set<string>;
  /** Content hashes of the rows with the same ids that were stored before. */
  storedHashes: Map<string, string>;
};

/**
 * Inserts an export's spans in one statement, which also reads the hashes of rows with the same ids stored before
 * it (its snapshot precedes its own insert).
 */
export async function insertSpans(sql: Sql, rows: SpanRow[]): Promise<InsertedSpans> {
  const result: InsertedSpans = { inserted: new Set(), storedHashes: new Map() };
  if (rows.length === 0) return result;
  const found = await sql.query<{
    kind: "inserted" | "same ids";
    trace_id: string;
    span_id: string;
    content_hash: string | null;
  }>(INSERT_SPANS, [
    rows.map((row) => row.traceId),
    rows.map((row) => row.spanId),
    rows.map((row) => row.sessionKey),
    rows.map((row) => row.contentHash),
    rows.map((row) => row.role),
    rows.map((row) => row.json),
  ]);
  for (const row of found) {
    const key = spanKey({ traceId: row.trace_id, spanId: row.span_id });
    if (row.kind === "inserted") result.inserted.add(key);
    else result.storedHashes.set(key, row.content_hash ?? "");
  }
  return result;
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

/** Removes spans this transaction stored and then refused (their session's record was not accepted). */
export async function deleteSpans(sql: Sql, keys: { traceId: string; spanId: string }[]): Promise<void> {
  if (keys.length === 0) return;
  await sql.execute(
    `delete from otlp_spans s using unnest($1::text[], $2::text[]) as k(trace_id, span_id)
      where s.trace_id = k.trace_id and s.span_id = k.span_id`,
    [keys.map((key) => key.traceId), keys.map((key) => key.spanId)],
  );
}

/**
 * Retention: deletes every span of up to `limit` sessions whose newest span was received before `cutoff`, oldest
 * first (otlp_spans_received_at_idx). A session still receiving spans keeps all of them, old ones too: its records
 * are re-assembled from every span of the session, so one missing would change them. A session an export holds
 * (lockSessions) is skipped, never waited for, and checked again under its lock. Returns how many spans went.
 */
export async function deleteIdleSessionSpans(sql: Sql, cutoff: Date, limit: number): Promise<number> {
  if (!(await tryLockFamilyShared(sql, "otlp-sessions"))) return 0;
  const idleSince = `not exists (select 1 from otlp_spans n
    where n.session_key = s.session_key and n.received_at >= $1::timestamptz)`;
  const locked = await sql.query<{ session_key: string }>(
    `with idle as (
        select distinct o.session_key from (
          select s.session_key from otlp_spans s where s.received_at < $1::timestamptz and ${idleSince}
            order by s.received_at limit least($2::int, ${MAX_EXACT_KEYS})) o
      )
      select i.session_key from idle i
        where pg_try_advisory_xact_lock(hashtextextended('otlp-session:' || i.session_key, 0))`,
    [cutoff.toISOString(), limit],
  );
  if (locked.length === 0) return 0;
  return sql.execute(`delete from otlp_spans s where s.session_key = any($2::text[]) and ${idleSince}`, [
    cutoff.toISOString(),
    locked.map((row) => row.session_key),
  ]);
}
