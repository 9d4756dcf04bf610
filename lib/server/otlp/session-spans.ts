import { type RoledSpan, redactSpan, type SpanRole, spanRoleOf } from "@/lib/otlp";
import {
  countSessionSpans,
  readSessionContext,
  readSessionSpans,
  type SpanRow,
  spanKey,
  type StoredSpan,
} from "../db/otlp-spans";
import type { Sql } from "../db/sql";
import { env } from "../env";
import { ApiError } from "../http/api-error";
import { metrics } from "../metrics/registry";

export type SessionSpans = {
  /** Spans stored before this export (its own left out), with their roles, by session key. */
  storedBySession: Map<string, RoledSpan[]>;
  /** Sessions that held spans before this export. */
  grown: Set<string>;
};

/**
 * What this export's sessions are re-assembled from, read after its spans are loaded (under the sessions' locks).
 * An export that adds calls reads the spans every chain of a session reads (`session`, `challenge`) and the spans of
 * the traces it adds to: its cost follows what it adds, not the session's history. The whole session is read when
 * the export brings a handshake, catalog or challenge span (later chains of the session change), when the session
 * holds a challenge (any answered request may resolve it), or when it holds spans stored before roles.
 * A session past RECEIPT_OTLP_MAX_SESSION_SPANS refuses the export (422 `session_span_limit`, nothing stored).
 */
export async function readSessionSpansToRebuild(
  sql: Sql,
  fresh: SpanRow[],
  pathOf: (row: SpanRow) => string,
): Promise<SessionSpans> {
  const freshBySession = new Map<string, SpanRow[]>();
  for (const row of fresh) {
    const rows = freshBySession.get(row.sessionKey);
    if (rows === undefined) freshBySession.set(row.sessionKey, [row]);
    else rows.push(row);
  }
  const held = await countSessionSpans(sql, [...freshBySession.keys()]);
  refuseOverfull(freshBySession, held, pathOf);
  const grown = new Set(
    [...freshBySession].filter(([key, rows]) => (held.get(key) ?? 0) > rows.length).map(([key]) => key),
  );
  const freshKeys = new Set(fresh.map(spanKey));
  const whole = new Set(
    [...grown].filter((key) => (freshBySession.get(key) ?? []).some((row) => row.role !== "local")),
  );
  const partial = new Set([...grown].filter((key) => !whole.has(key)));
  const traces = fresh.filter((row) => partial.has(row.sessionKey)).map((row) => row.traceId);
  const context = partial.size === 0 ? [] : await readSessionContext(sql, [...partial], traces);
  for (const span of context) {
    if (span.role === "unknown" || span.role === "challenge") whole.add(span.sessionKey);
  }
  const wholeSpans = await readSessionSpans(sql, [...whole]);
  metrics().otlpSessionSpansRead.inc(context.length + wholeSpans.length);
  const storedBySession = new Map<string, RoledSpan[]>();
  const keep = (stored: StoredSpan) => {
    if (freshKeys.has(spanKey(stored))) return;
    const list = storedBySession.get(stored.sessionKey) ?? [];
    // Redacted again with today's rules, once: a span stored by an older release may keep what they now drop.
    const span = redactSpan(stored.span);
    list.push({ span, role: roleOf({ ...stored, span }) });
    storedBySession.set(stored.sessionKey, list);
  };
  for (const stored of context) if (!whole.has(stored.sessionKey)) keep(stored);
  for (const stored of wholeSpans) keep(stored);
  return { storedBySession, grown };
}

const roleOf = (stored: StoredSpan): SpanRole =>
  stored.role === "session" || stored.role === "challenge" || stored.role === "local"
    ? stored.role
    : spanRoleOf(stored.span);

function refuseOverfull(
  freshBySession: Map<string, SpanRow[]>,
  held: Map<string, number>,
  pathOf: (row: SpanRow) => string,
) {
  const limit = env().RECEIPT_OTLP_MAX_SESSION_SPANS;
  for (const [key, rows] of freshBySession) {
    const spans = held.get(key) ?? 0;
    const first = rows[0];
    if (spans <= limit || first === undefined) continue;
    const path = pathOf(first);
    const message = `the span's session would hold ${spans} spans, over the limit of ${limit} a session (RECEIPT_OTLP_MAX_SESSION_SPANS)`;
    throw new ApiError(422, "session_span_limit", `nothing stored: at ${path}, ${message}`, [
      { path, code: "session_span_limit", message },
    ]);
  }
}
