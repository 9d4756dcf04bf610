import { createHash } from "node:crypto";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { eventLoopPace } from "../event-loop-pace";
import { findUnstorableStrings } from "@/lib/contract/storable";
import { findSecrets } from "@/lib/contract/redaction";
import { redactSpan, sessionKeyOf, spanRoleOf } from "@/lib/otlp";
import type { OtlpSpan } from "@/lib/otlp/span";
import {
  deleteSpans,
  copySpans,
  insertSpans,
  isSpanStoredAlready,
  lockSessions,
  readSpanHashes,
  type SpanRow,
  spanKey,
} from "../db/otlp-spans";
import { lockChainsAndRecords } from "../db/chain-writes";
import { isRecordStoredAlready, type RecordLoad } from "../db/records";
import { inTransaction, type TransactionSql } from "../db/sql";
import type { PreparedRecord } from "../ingest/prepare-records";
import { dedupeWithinBatch, storeRecordsIn } from "../ingest/store-records";
import { assembleSessions } from "./assemble-sessions";
import type { SpanRejection } from "./normalise-spans";
import { countExport, countRefusedExport } from "./otlp-metrics";
import { keepRefusals, keepRefusedExport } from "./otlp-refusals";
import { readExport } from "./read-export";
import { readSessionSpansToRebuild } from "./session-spans";

export type TracesResult = {
  rejected: SpanRejection[];
  /** Spans accepted without one of their attributes (a `receipt.*` value that does not fit its field). */
  warnings: SpanRejection[];
  spans: { received: number; stored: number; duplicate: number };
  records: { stored: number; duplicate: number };
};

/**
 * POST /v1/traces: decode, redact (before anything is stored), then store the spans and re-assemble and ingest every
 * touched session in one transaction. A span is rejected alone (partial success) when it cannot be read, conflicts
 * with a stored span, cannot be mapped, or belongs to a session whose record the native path refuses; what is
 * rejected is never left stored.
 */
export async function ingestTraces(request: Request): Promise<TracesResult> {
  try {
    const result = await receiveTraces(request);
    countExport(result);
    await keepRefusals(result.rejected);
    return result;
  } catch (error) {
    countRefusedExport(error);
    await keepRefusedExport(error);
    throw error;
  }
}

const SPANS_BETWEEN_YIELDS = 100;

async function receiveTraces(request: Request): Promise<TracesResult> {
  const decoded = await readExport(request);
  const rejected = [...decoded.rejected];
  const rows = new Map<string, SpanRow>();
  let duplicateInExport = 0;
  const pathOf = new Map<string, string>();
  for (const [i, span] of decoded.spans.entries()) {
    // Redaction, hashing and the role are CPU work a span: an export of thousands lets other requests in between.
    if (i > 0 && i % SPANS_BETWEEN_YIELDS === 0) await yieldToEventLoop();
    const row = rowOf(redactSpan(span));
    if (!pathOf.has(spanKey(row))) pathOf.set(spanKey(row), decoded.paths[i] ?? "$");
    const unstorable = findUnstorableStrings(row.span)[0];
    // What is kept is scanned as it is stored: a label or receipt no record uses is never stored unscanned.
    const secret = findSecrets(keptValues(row.span))[0];
    const previous = rows.get(spanKey(row));
    if (unstorable) rejected.push(rejection(row, "unstorable_string", `$.span${unstorable.path.slice(1)}`));
    else if (secret)
      rejected.push(
        rejection(
          row,
          "secret_detected",
          `$.span${secret.path.slice(1)}`,
          `a kept value looks like a credential (${secret.pattern}); the span is not stored`,
        ),
      );
    else if (previous === undefined) rows.set(spanKey(row), row);
    else if (previous.contentHash === row.contentHash) duplicateInExport++;
    else
      rejected.push(
        rejection(row, "span_conflict", "$", "the export holds this span twice with other content"),
      );
  }
  const stored = await storeOnce([...rows.values()], (row) => pathOf.get(spanKey(row)) ?? "$");
  rejected.push(...stored.rejected);
  return {
    rejected,
    warnings: stored.warnings,
    spans: {
      received: decoded.spans.length + decoded.rejected.length,
      stored: stored.spans,
      duplicate: stored.duplicateSpans + duplicateInExport,
    },
    records: stored.records,
  };
}

/**
 * The span's stored text is also what its content hash is taken over: normalisation builds every span with the same
 * key order (attributes sorted), and redaction is a pure function of it, so equal content gives equal text.
 */
function rowOf(span: OtlpSpan): SpanRow {
  const json = JSON.stringify(span);
  const contentHash = createHash("sha256").update(json).digest("hex");
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    sessionKey: sessionKeyOf(span),
    contentHash,
    role: spanRoleOf(span),
    span,
    json,
  };
}

/** The values redaction keeps from the agent (attributes, events, resource): ids and hashes are Receipt's own. */
const keptValues = (span: OtlpSpan) => ({
  attributes: span.attributes,
  events: span.events,
  resource: span.resource,
});

function rejection(
  ids: { traceId: string; spanId: string },
  code: string,
  path: string,
  message = "a kept value cannot be stored (NUL or an unpaired surrogate)",
): SpanRejection {
  return { traceId: ids.traceId, spanId: ids.spanId, path, code, message };
}

type StoreOutcome = {
  rejected: SpanRejection[];
  warnings: SpanRejection[];
  spans: number;
  duplicateSpans: number;
  records: { stored: number; duplicate: number };
};

/**
 * Two tries, as the native path makes: the first loads the spans with COPY and the records of sessions new to the
 * store without a look-up (neither can be stored yet unless the export was sent before); a span or record met again
 * (a unique violation) runs the transaction once more, now inserting spans one by one with ON CONFLICT and checking
 * every rebuilt record against the stored ones.
 */
type Attempt = "optimistic" | "checked";

const NOTHING_STORED: StoreOutcome = {
  rejected: [],
  warnings: [],
  spans: 0,
  duplicateSpans: 0,
  records: { stored: 0, duplicate: 0 },
};

async function storeOnce(rows: SpanRow[], pathOf: (row: SpanRow) => string): Promise<StoreOutcome> {
  if (rows.length === 0) return NOTHING_STORED;
  try {
    return await inTransaction((sql) => storeExport(sql, rows, pathOf, "optimistic"));
  } catch (error) {
    if (!isSpanStoredAlready(error) && !isRecordStoredAlready(error)) throw error;
    return inTransaction((sql) => storeExport(sql, rows, pathOf, "checked"));
  }
}

async function storeExport(
  sql: TransactionSql,
  rows: SpanRow[],
  pathOf: (row: SpanRow) => string,
  attempt: Attempt,
): Promise<StoreOutcome> {
  await lockSessions(
    sql,
    rows.map((row) => row.sessionKey),
  );
  const { inserted, storedHashes } = await loadSpans(sql, rows, attempt);
  // Passes over every span of the export, some with no I/O between them: 15,000 spans held the loop 40-odd ms.
  const pace = eventLoopPace();
  const notInserted = rows.filter((row) => !inserted.has(spanKey(row)));
  // A row neither inserted nor in the statement's snapshot was committed meanwhile by another export.
  const unseen = notInserted.filter((row) => !storedHashes.has(spanKey(row)));
  const hashOf = new Map([...storedHashes, ...(await readSpanHashes(sql, unseen))]);
  const rejected = notInserted
    .filter((row) => hashOf.get(spanKey(row)) !== row.contentHash)
    .map((row) => rejection(row, "span_conflict", "$", "a span with these ids is stored with other content"));
  const duplicateSpans = notInserted.length - rejected.length;
  await pace();
  const fresh = rows.filter((row) => inserted.has(spanKey(row)));
  const sessions = await readSessionSpansToRebuild(sql, fresh, pathOf);
  await pace();
  const assembled = await assembleSessions(sql, fresh, sessions, attempt === "checked");
  rejected.push(...assembled.rejected);
  const refusedSpans = fresh.filter((row) => assembled.refused.has(spanKey(row)));
  await deleteSpans(sql, refusedSpans);
  await pace();
  const batch = dedupeWithinBatch(assembled.records);
  await pace();
  // The second try cannot meet a stored recordId again: it skips them (a conflict found there refuses with 409).
  const load = attempt === "checked" ? "skipping stored" : "copy";
  const duplicates = await storeInSteps(sql, batch, load);
  return {
    rejected,
    warnings: assembled.warnings,
    spans: fresh.length - refusedSpans.length,
    duplicateSpans,
    records: {
      stored: batch.length - duplicates.size,
      duplicate: assembled.records.length - batch.length + duplicates.size + assembled.storedAlready,
    },
  };
}

/** Records stored a step, the event loop free between two: thousands at once held it for a second. */
const RECORDS_A_STEP = 500;

/**
 * `storeRecordsIn` a step at a time. Past one step every chain and record of the export is locked first, in the one
 * order every writer uses: past 512 keys that is the lock standing for all of them (db/key-locks.ts), which each
 * step then holds already. Chains are never shared between steps (one record a chain an export).
 */
async function storeInSteps(sql: TransactionSql, batch: PreparedRecord[], load: RecordLoad) {
  if (batch.length <= RECORDS_A_STEP) {
    return batch.length > 0 ? storeRecordsIn(sql, batch, load) : new Set<string>();
  }
  await lockChainsAndRecords(
    sql,
    batch.map((item) => item.record.chainId),
    batch.map((item) => item.record.recordId),
  );
  const duplicates = new Set<string>();
  for (let first = 0; first < batch.length; first += RECORDS_A_STEP) {
    if (first > 0) await yieldToEventLoop();
    for (const id of await storeRecordsIn(sql, batch.slice(first, first + RECORDS_A_STEP), load))
      duplicates.add(id);
  }
  return duplicates;
}

/** The spans' load of either try: which rows it stored, and the hashes of stored rows with the same ids. */
async function loadSpans(sql: TransactionSql, rows: SpanRow[], attempt: Attempt) {
  if (attempt === "checked") return insertSpans(sql, rows);
  await copySpans(sql, rows);
  return { inserted: new Set(rows.map(spanKey)), storedHashes: new Map<string, string>() };
}
