import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { buildRecords, type MappingProblem, mappingPasses, PROBLEM_CODES, type RoledSpan } from "@/lib/otlp";
import { type SpanRow, spanKey } from "../db/otlp-spans";
import { readStoredBodies } from "../db/records";
import type { TransactionSql } from "../db/sql";
import { eventLoopPace } from "../event-loop-pace";
import { type PreparedRecord, prepareRecord, sameContent } from "../ingest/prepare-records";
import type { SpanRejection } from "./normalise-spans";
import type { SessionSpans } from "./session-spans";

export type Assembled = {
  /** Records to store: new ones only (a record stored already with the same content is counted, not stored). */
  records: PreparedRecord[];
  storedAlready: number;
  rejected: SpanRejection[];
  warnings: SpanRejection[];
  /** Keys of this export's spans that are refused: removed from the store before commit. */
  refused: Set<string>;
};

/**
 * Local spans a mapping pass takes at most: a pass is synchronous, and one over a whole session of thousands of
 * calls held the event loop (every other request) for seconds. Between passes the loop runs.
 */
const SPANS_A_PASS = 100;

/**
 * Rebuilds every session that got a new span from its spans (`readSessionSpansToRebuild`). A new span the mapping
 * cannot use is refused and the session rebuilt without it; a session whose record the native validation refuses
 * (secret guard, schema) or that conflicts with a stored record keeps none of this export's spans. Every span given
 * is redacted already (`redactSpan`): the export's on arrival, stored ones as they are read back.
 */
export async function assembleSessions(
  sql: TransactionSql,
  fresh: SpanRow[],
  sessions: SessionSpans,
  checkStored: boolean,
): Promise<Assembled> {
  const freshBySession = new Map<string, SpanRow[]>();
  for (const row of fresh) {
    const rows = freshBySession.get(row.sessionKey) ?? [];
    rows.push(row);
    freshBySession.set(row.sessionKey, rows);
  }
  const result: Assembled = { records: [], storedAlready: 0, rejected: [], warnings: [], refused: new Set() };
  const bySession = new Map<string, PreparedRecord[]>();
  let index = 0; // records of one export are numbered across sessions: the chain store orders ties by it
  const pace = eventLoopPace(); // thousands of small sessions: each yields nowhere on its own
  for (const [sessionKey, rows] of freshBySession) {
    await pace();
    const freshKeys = new Set(rows.map(spanKey));
    const spans = [...(sessions.storedBySession.get(sessionKey) ?? []), ...rows];
    const built = await rebuildSession(spans, freshKeys, result);
    if (built === undefined) continue;
    let prepared = await prepareAll(built, () => index++);
    const refusals = prepared.filter((item): item is Refusal => !item.ok);
    if (refusals.length > 0) {
      const kept = await withoutRefusedChains(spans, rows, refusals, () => index++);
      if (kept === undefined) {
        const first = refusals[0] as Refusal;
        refuseSession(result, freshKeys, `record_${first.code}`, refusalMessage("session", first));
        continue;
      }
      for (const { row, refusal } of kept.refused) {
        if (result.refused.has(spanKey(row))) continue;
        result.refused.add(spanKey(row));
        result.rejected.push(rejection(row, `record_${refusal.code}`, refusalMessage("chain", refusal)));
      }
      prepared = kept.prepared;
    }
    bySession.set(
      sessionKey,
      prepared.flatMap((item) => (item.ok ? [item.prepared] : [])),
    );
  }
  const grown = [...bySession.keys()].some((sessionKey) => sessions.grown.has(sessionKey));
  if (grown || checkStored) {
    await setStoredRecordsAside(sql, bySession, freshBySession, result);
  } else {
    for (const records of bySession.values()) result.records.push(...records);
  }
  return result;
}

type Prepared = ReturnType<typeof prepareRecord>;
type Refusal = Extract<Prepared, { ok: false }> & { chainId: string };

/** The native validation of each rebuilt record, the event loop free every SPANS_A_PASS records. */
async function prepareAll(records: unknown[], nextIndex: () => number): Promise<(Prepared | Refusal)[]> {
  const prepared: (Prepared | Refusal)[] = [];
  for (const [n, record] of records.entries()) {
    const item = prepareRecord(record, nextIndex());
    prepared.push(item.ok ? item : { ...item, chainId: (record as { chainId: string }).chainId });
    if ((n + 1) % SPANS_A_PASS === 0) await yieldToEventLoop();
  }
  return prepared;
}

function refusalMessage(scope: "chain" | "session", refusal: Refusal) {
  const issue = refusal.issues[0];
  const why = issue ? `${issue.code} at ${issue.path}` : refusal.code;
  return scope === "chain"
    ? `the chain's record is refused: ${why}; the session's other chains are kept`
    : `the session's record is refused: ${why}`;
}

/**
 * Refusal per chain, as the native path refuses per record: when every refused record is a call chain whose call
 * span this export brought, those call spans and the new spans under them are refused and the session is rebuilt
 * without them, keeping its other chains. Answers undefined — refuse the session's new spans whole — when a refused
 * record is the session's own, its call span was stored before (what broke it is a span other chains read), or the
 * rebuild still holds a refused record.
 */
async function withoutRefusedChains(
  spans: RoledSpan[],
  fresh: SpanRow[],
  refusals: Refusal[],
  nextIndex: () => number,
): Promise<{ prepared: Prepared[]; refused: { row: SpanRow; refusal: Refusal }[] } | undefined> {
  const freshByKey = new Map(fresh.map((row) => [spanKey(row), row]));
  const refused: { row: SpanRow; refusal: Refusal }[] = [];
  for (const refusal of refusals) {
    const match = /^otlp:([0-9a-f]{32}):([0-9a-f]{16})$/.exec(refusal.chainId);
    const call = match ? freshByKey.get(`${match[1]}/${match[2]}`) : undefined;
    if (call === undefined) return undefined;
    refused.push({ row: call, refusal });
    for (const row of fresh) {
      if (row.traceId === call.traceId && row.span.parentSpanId === call.spanId)
        refused.push({ row, refusal });
    }
  }
  const dropped = new Set(refused.map(({ row }) => spanKey(row)));
  const scratch: Assembled = {
    records: [],
    storedAlready: 0,
    rejected: [],
    warnings: [],
    refused: new Set(),
  };
  const rest = spans.filter((item) => !dropped.has(spanKey(item.span)));
  const freshKeys = new Set(fresh.map(spanKey).filter((key) => !dropped.has(key)));
  const built = await rebuildSession(rest, freshKeys, scratch);
  if (built === undefined) return undefined;
  const prepared = await prepareAll(built, nextIndex);
  if (prepared.some((item) => !item.ok)) return undefined;
  return { prepared, refused };
}

/**
 * `buildRecords` over a session's spans, pass by pass; a new span it cannot map is refused and its pass rebuilt
 * without it. A `receipt.*` value that does not fit its field leaves its span mapped without it: a warning, not a
 * rejection. A mapping that throws refuses the session's new spans (`mapping_failed`) rather than the export with
 * a 500. A record every pass builds (the session's own) is kept once.
 */
async function rebuildSession(spans: RoledSpan[], freshKeys: Set<string>, result: Assembled) {
  const records = new Map<string, unknown>();
  const reported = new Set<string>();
  const report = (list: SpanRejection[], problem: MappingProblem) => {
    const key = `${spanKey(problem)}/${problem.code}/${problem.message}`;
    if (reported.has(key)) return;
    reported.add(key);
    list.push(rejection(problem, problem.code, problem.message));
  };
  try {
    for (const [n, pass] of mappingPasses(spans, SPANS_A_PASS).entries()) {
      if (n > 0) await yieldToEventLoop();
      const passSpans = pass.map((item) => item.span);
      // Fresh spans were redacted on arrival, stored ones as they were read (readSessionSpansToRebuild).
      let built = buildRecords(passSpans, { redacted: true });
      const fresh = built.problems.filter((problem) => freshKeys.has(spanKey(problem)));
      for (const problem of fresh.filter(isWarning)) report(result.warnings, problem);
      const unmappable = fresh.filter((problem) => !isWarning(problem));
      if (unmappable.length > 0) {
        const bad = new Set(unmappable.map(spanKey));
        built = buildRecords(
          passSpans.filter((span) => !bad.has(spanKey(span))),
          { redacted: true },
        );
        for (const problem of unmappable) {
          result.refused.add(spanKey(problem));
          report(result.rejected, problem);
        }
      }
      for (const record of built.records) records.set((record as { recordId: string }).recordId, record);
    }
    const chainOf = (record: unknown) => (record as { chainId: string }).chainId;
    return [...records.values()].sort((a, b) =>
      chainOf(a) < chainOf(b) ? -1 : chainOf(a) > chainOf(b) ? 1 : 0,
    );
  } catch (error) {
    console.error("receipt: OTLP mapping failed:", error instanceof Error ? error.name : "unknown error");
    refuseSession(result, freshKeys, "mapping_failed", "the session's spans could not be mapped to records");
    return undefined;
  }
}

const WARNINGS: ReadonlySet<string> = new Set([
  PROBLEM_CODES.invalidAttribute,
  PROBLEM_CODES.ambiguousReceipt,
  PROBLEM_CODES.maskedAttribute,
]);
const isWarning = (problem: MappingProblem) => WARNINGS.has(problem.code);

function rejection(ids: { traceId: string; spanId: string }, code: string, message: string): SpanRejection {
  return { traceId: ids.traceId, spanId: ids.spanId, path: "$", code, message };
}

function refuseSession(result: Assembled, freshKeys: Set<string>, code: string, message: string) {
  for (const key of freshKeys) {
    if (result.refused.has(key)) continue;
    result.refused.add(key);
    const [traceId = "", spanId = ""] = key.split("/");
    result.rejected.push(rejection({ traceId, spanId }, code, message));
  }
}

/**
 * A rebuilt record whose recordId is stored with the same content is nothing new (the chain has not changed);
 * with other content it is a conflict, which refuses its session instead of the whole export.
 */
async function setStoredRecordsAside(
  sql: TransactionSql,
  bySession: Map<string, PreparedRecord[]>,
  freshBySession: Map<string, SpanRow[]>,
  result: Assembled,
) {
  const all = [...bySession.values()].flat();
  const bodyOf = await readStoredBodies(
    sql,
    all.map((item) => item.record.recordId),
  );
  const pace = eventLoopPace();
  for (const [sessionKey, records] of bySession) {
    await pace();
    const stored = records.filter((item) => bodyOf.has(item.record.recordId));
    const conflict = stored.find((item) => {
      const body = bodyOf.get(item.record.recordId) as string;
      return body !== item.json && !sameContent(JSON.parse(body), item.record);
    });
    if (conflict) {
      const message = "the session's record conflicts with a stored record of the same recordId";
      const freshKeys = new Set((freshBySession.get(sessionKey) ?? []).map(spanKey));
      refuseSession(result, freshKeys, "record_conflict", message);
      continue;
    }
    result.storedAlready += stored.length;
    result.records.push(...records.filter((item) => !bodyOf.has(item.record.recordId)));
  }
}
