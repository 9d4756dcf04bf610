import { createHash } from "node:crypto";
import { findUnstorableStrings } from "@/lib/contract/storable";
import { buildRecords, type MappingProblem, PROBLEM_CODES, redactSpan, sessionKeyOf } from "@/lib/otlp";
import type { OtlpSpan } from "@/lib/otlp/span";
import {
  deleteSpans,
  copySpans,
  insertSpans,
  isSpanStoredAlready,
  lockSessions,
  readSessionSpans,
  readSpanHashes,
  type SpanRow,
  spanKey,
} from "../db/otlp-spans";
import { isRecordStoredAlready, readStoredBodies } from "../db/records";
import { inTransaction, type TransactionSql } from "../db/sql";
import { type PreparedRecord, prepareRecord, sameContent } from "../ingest/prepare-records";
import { dedupeWithinBatch, storeRecordsIn } from "../ingest/store-records";
import type { SpanRejection } from "./normalise-spans";
import { countExport, countRefusedExport } from "./otlp-metrics";
import { readExport } from "./read-export";

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
    return result;
  } catch (error) {
    countRefusedExport(error);
    throw error;
  }
}

async function receiveTraces(request: Request): Promise<TracesResult> {
  const decoded = await readExport(request);
  const rejected = [...decoded.rejected];
  const rows = new Map<string, SpanRow>();
  let duplicateInExport = 0;
  for (const span of decoded.spans) {
    const row = rowOf(redactSpan(span));
    const unstorable = findUnstorableStrings(row.span)[0];
    const previous = rows.get(spanKey(row));
    if (unstorable) rejected.push(rejection(row, "unstorable_string", `$.span${unstorable.path.slice(1)}`));
    else if (previous === undefined) rows.set(spanKey(row), row);
    else if (previous.contentHash === row.contentHash) duplicateInExport++;
    else
      rejected.push(
        rejection(row, "span_conflict", "$", "the export holds this span twice with other content"),
      );
  }
  const stored = await storeOnce([...rows.values()]);
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
    span,
    json,
  };
}

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

async function storeOnce(rows: SpanRow[]): Promise<StoreOutcome> {
  if (rows.length === 0) return NOTHING_STORED;
  try {
    return await inTransaction((sql) => storeExport(sql, rows, "optimistic"));
  } catch (error) {
    if (!isSpanStoredAlready(error) && !isRecordStoredAlready(error)) throw error;
    return inTransaction((sql) => storeExport(sql, rows, "checked"));
  }
}

async function storeExport(sql: TransactionSql, rows: SpanRow[], attempt: Attempt): Promise<StoreOutcome> {
  await lockSessions(
    sql,
    rows.map((row) => row.sessionKey),
  );
  const { inserted, storedHashes, storedBySession } = await loadSpans(sql, rows, attempt);
  const notInserted = rows.filter((row) => !inserted.has(spanKey(row)));
  // A row neither inserted nor in the statement's snapshot was committed meanwhile by another export.
  const unseen = notInserted.filter((row) => !storedHashes.has(spanKey(row)));
  const hashOf = new Map([...storedHashes, ...(await readSpanHashes(sql, unseen))]);
  const rejected = notInserted
    .filter((row) => hashOf.get(spanKey(row)) !== row.contentHash)
    .map((row) => rejection(row, "span_conflict", "$", "a span with these ids is stored with other content"));
  const duplicateSpans = notInserted.length - rejected.length;
  const fresh = rows.filter((row) => inserted.has(spanKey(row)));
  const assembled = await assembleSessions(sql, fresh, storedBySession, attempt);
  rejected.push(...assembled.rejected);
  const refusedSpans = fresh.filter((row) => assembled.refused.has(spanKey(row)));
  await deleteSpans(sql, refusedSpans);
  const batch = dedupeWithinBatch(assembled.records);
  // The second try cannot meet a stored recordId again: it skips them (a conflict found there refuses with 409).
  const load = attempt === "checked" ? "skipping stored" : "copy";
  const duplicates = batch.length > 0 ? await storeRecordsIn(sql, batch, load) : new Set<string>();
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

/** The spans' load of either try, and what was stored before it. */
async function loadSpans(sql: TransactionSql, rows: SpanRow[], attempt: Attempt) {
  if (attempt === "checked") return insertSpans(sql, rows);
  const storedBySession = await readSessionSpans(
    sql,
    rows.map((row) => row.sessionKey),
  );
  await copySpans(sql, rows);
  return { inserted: new Set(rows.map(spanKey)), storedHashes: new Map<string, string>(), storedBySession };
}

type Assembled = {
  /** Records to store: new ones only (a record stored already with the same content is counted, not stored). */
  records: PreparedRecord[];
  storedAlready: number;
  rejected: SpanRejection[];
  warnings: SpanRejection[];
  /** Keys of this export's spans that are refused: removed from the store before commit. */
  refused: Set<string>;
};

/**
 * Rebuilds every session that got a new span from all its stored spans, in one read. A new span the mapping
 * cannot use is refused and the session rebuilt without it; a session whose record the native validation refuses
 * (secret guard, schema) or that conflicts with a stored record keeps none of this export's spans.
 */
async function assembleSessions(
  sql: TransactionSql,
  fresh: SpanRow[],
  storedBySession: Map<string, OtlpSpan[]>,
  attempt: Attempt,
): Promise<Assembled> {
  const freshBySession = new Map<string, Set<string>>();
  const spansBySession = new Map<string, OtlpSpan[]>();
  for (const row of fresh) {
    const keys = freshBySession.get(row.sessionKey) ?? new Set();
    keys.add(spanKey(row));
    freshBySession.set(row.sessionKey, keys);
    const spans = spansBySession.get(row.sessionKey) ?? [...(storedBySession.get(row.sessionKey) ?? [])];
    spans.push(row.span);
    spansBySession.set(row.sessionKey, spans);
  }
  const result: Assembled = {
    records: [],
    storedAlready: 0,
    rejected: [],
    warnings: [],
    refused: new Set(),
  };
  const bySession = new Map<string, PreparedRecord[]>();
  let index = 0; // records of one export are numbered across sessions: the chain store orders ties by it
  for (const [sessionKey, freshKeys] of freshBySession) {
    const built = rebuildSession(spansBySession.get(sessionKey) ?? [], freshKeys, result);
    if (built === undefined) continue;
    const prepared = built.records.map((record) => prepareRecord(record, index++));
    const refusal = prepared.find((item) => !item.ok);
    if (refusal && !refusal.ok) {
      const issue = refusal.issues[0];
      refuseSession(
        result,
        freshKeys,
        `record_${refusal.code}`,
        `the session's record is refused: ${issue ? `${issue.code} at ${issue.path}` : refusal.code}`,
      );
      continue;
    }
    bySession.set(
      sessionKey,
      prepared.flatMap((item) => (item.ok ? [item.prepared] : [])),
    );
  }
  const grown = [...bySession.keys()].some((sessionKey) => storedBySession.has(sessionKey));
  if (grown || attempt === "checked") {
    await setStoredRecordsAside(sql, bySession, freshBySession, result);
  } else {
    for (const records of bySession.values()) result.records.push(...records);
  }
  return result;
}

/**
 * `buildRecords` over a session's spans; a new span it cannot map is refused and the session rebuilt without it. A
 * `receipt.*` value that does not fit its field leaves its span mapped without it: a warning, not a rejection.
 * A mapping that throws refuses the session's new spans (`mapping_failed`) rather than the export with a 500.
 */
function rebuildSession(spans: OtlpSpan[], freshKeys: Set<string>, result: Assembled) {
  try {
    let built = buildRecords(spans);
    const fresh = built.problems.filter((problem) => freshKeys.has(spanKey(problem)));
    for (const problem of fresh.filter(isWarning)) {
      result.warnings.push(rejection(problem, problem.code, "$", problem.message));
    }
    const unmappable = fresh.filter((problem) => !isWarning(problem));
    if (unmappable.length === 0) return built;
    const bad = new Set(unmappable.map(spanKey));
    built = buildRecords(spans.filter((span) => !bad.has(spanKey(span))));
    for (const problem of unmappable) {
      result.refused.add(spanKey(problem));
      result.rejected.push(rejection(problem, problem.code, "$", problem.message));
    }
    return built;
  } catch (error) {
    console.error("receipt: OTLP mapping failed:", error instanceof Error ? error.name : "unknown error");
    refuseSession(result, freshKeys, "mapping_failed", "the session's spans could not be mapped to records");
    return undefined;
  }
}

const isWarning = (problem: MappingProblem) => problem.code === PROBLEM_CODES.invalidAttribute;

function refuseSession(result: Assembled, freshKeys: Set<string>, code: string, message: string) {
  for (const key of freshKeys) {
    if (result.refused.has(key)) continue;
    result.refused.add(key);
    const [traceId = "", spanId = ""] = key.split("/");
    result.rejected.push(rejection({ traceId, spanId }, code, "$", message));
  }
}

/**
 * A rebuilt record whose recordId is stored with the same content is nothing new (the chain has not changed);
 * with other content it is a conflict, which refuses its session instead of the whole export.
 */
async function setStoredRecordsAside(
  sql: TransactionSql,
  bySession: Map<string, PreparedRecord[]>,
  freshBySession: Map<string, Set<string>>,
  result: Assembled,
) {
  const all = [...bySession.values()].flat();
  const bodyOf = await readStoredBodies(
    sql,
    all.map((item) => item.record.recordId),
  );
  for (const [sessionKey, records] of bySession) {
    const stored = records.filter((item) => bodyOf.has(item.record.recordId));
    const conflict = stored.find((item) => {
      const body = bodyOf.get(item.record.recordId) as string;
      return body !== item.json && !sameContent(JSON.parse(body), item.record);
    });
    if (conflict) {
      const message = "the session's record conflicts with a stored record of the same recordId";
      refuseSession(result, freshBySession.get(sessionKey) ?? new Set(), "record_conflict", message);
      continue;
    }
    result.storedAlready += stored.length;
    result.records.push(...records.filter((item) => !bodyOf.has(item.record.recordId)));
  }
}
