// The bulk seed's rows: the demo mix of scripts/seed (servers, tools, clients, scenarios, sessions of 1–6 chains)
// validated and classified as ingestion does, folded into chains and state history by the same pure functions the
// write path uses (applyRecordsToChain, and reclassifyAtDeadline for the deadlines already past), as COPY text.
import { reclassifyAtDeadline } from "../lib/chains/deadline";
import {
  applyRecordsToChain,
  type ChainRow,
  type StateChange,
  type StoredRecord,
} from "../lib/chains/transitions";
import { copyField, copyRow, copyTextArray } from "../lib/server/db/copy-text";
import { recordCopyRow } from "../lib/server/db/records";
import { prepareRecord } from "../lib/server/ingest/prepare-records";
import { demoSession } from "./seed/demo-records";
import type { Random } from "./seed/demo-world";

export { RECORD_COLUMNS } from "../lib/server/db/records";
export const CHAIN_COLUMNS = `chain_id, session_id, state, layer, reasons, retry_safe, evidence, shadowed_state,
  shadowed_reason, next_check_at, current_record_id, current_seq, observed_at, evaluated_at, first_seen_at,
  updated_at, server_name, server_version, client_name, client_version, transport, tool, labels, record_count,
  request_id, operation_key`;
export const CHANGE_COLUMNS = "chain_id, from_state, to_state, reason, at, record_id, cause, created_at";

export type SeedChunk = {
  records: string;
  chains: string;
  changes: string;
  chainCount: number;
  recordCount: number;
};

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Sessions until `chainTarget` chains, their first call at a time over the last `days` days: recent hours busiest,
 * so every overview window (1 h, 24 h, 7 d, 30 d) has something to show; within the chunk's slice of that spread. `nextSeq` numbers the records in order.
 */
export function seedChunk(
  random: Random,
  options: {
    runTag: string;
    firstSession: number;
    chainTarget: number;
    nowMs: number;
    days: number;
    /** This chunk's quantiles of the age distribution, 0 the oldest (see observedAt). */
    slice: [number, number];
  },
  nextSeq: () => bigint,
): SeedChunk & { sessions: number } {
  const records: string[] = [];
  const chains: string[] = [];
  const changes: string[] = [];
  let chainCount = 0;
  let recordCount = 0;
  let session = options.firstSession;
  while (chainCount < options.chainTarget) {
    const firstMs = observedAt(random, options.nowMs, options.days, options.slice);
    const sessionRecords = demoSession(random, `${options.runTag}-${session}`, firstMs, options.nowMs);
    session++;
    const byChain = new Map<string, StoredRecord[]>();
    for (const [index, input] of sessionRecords.entries()) {
      const result = prepareRecord(input, index);
      if (!result.ok) throw new Error(`the demo made an invalid record: ${JSON.stringify(result.issues)}`);
      const prepared = result.prepared;
      const stored: StoredRecord = { ...prepared, seq: nextSeq() };
      records.push(recordCopyRow(prepared, stored.seq));
      const list = byChain.get(prepared.record.chainId) ?? [];
      list.push(stored);
      byChain.set(prepared.record.chainId, list);
      recordCount++;
    }
    for (const list of byChain.values()) {
      const applied = applyRecordsToChain(null, list);
      if (!applied.row) continue;
      const { row, history } = pastDeadlines(applied.row, applied.changes, list, options.nowMs);
      chains.push(chainRow(row, list[0]?.observedAtMs ?? row.observedAt.getTime()));
      for (const change of history) changes.push(changeRow(change));
      chainCount++;
    }
  }
  return {
    records: records.join(""),
    chains: chains.join(""),
    changes: changes.join(""),
    chainCount,
    recordCount,
    sessions: session - options.firstSession,
  };
}

/** What the deadline worker would have done by now: a `working` chain past its nextCheckAt is classified again. */
function pastDeadlines(row: ChainRow, changes: StateChange[], list: StoredRecord[], nowMs: number) {
  let current = row;
  const history = [...changes];
  const record = list.find((stored) => stored.seq === row.currentSeq)?.record;
  for (let step = 0; step < 4 && record && current.state === "working"; step++) {
    if (!current.nextCheckAt || current.nextCheckAt.getTime() >= nowMs) break;
    const decision = reclassifyAtDeadline({
      chainId: current.chainId,
      nextCheckAt: current.nextCheckAt,
      currentSeq: current.currentSeq,
      currentRecordId: current.currentRecordId,
      recordCount: current.recordCount,
      record,
    });
    current = decision.row;
    if (decision.change) history.push(decision.change);
  }
  return { row: current, history };
}

// How old a session's first call is: 15 min plus a span drawn by these weights (2 % within the last hour, 14 % the
// last day, 34 % the last week, 50 % the whole range), uniform within it.
const AGE_WEIGHTS = [
  { weight: 0.02, span: () => HOUR },
  { weight: 0.14, span: () => DAY },
  { weight: 0.34, span: () => 7 * DAY },
  { weight: 0.5, span: (days: number) => days * DAY },
];
const MIN_AGE = 15 * 60_000;

/**
 * A session's first call in the chunk's `slice` of the age distribution (quantiles, 0 the oldest): chunk after chunk
 * goes from the oldest sessions to the newest, so `chains` is written roughly in time order, as live ingestion
 * writes it (a chunk in random times would scatter every time-ordered index walk over the whole heap and its
 * visibility map).
 */
function observedAt(random: Random, nowMs: number, days: number, slice: [number, number]): number {
  const quantile = slice[0] + random.next() * (slice[1] - slice[0]);
  const spans = AGE_WEIGHTS.map(({ weight, span }) => ({ weight, span: span(days) - MIN_AGE }));
  // The share of sessions at most `age` past MIN_AGE, increasing in age: inverted by bisection.
  const younger = (age: number) =>
    spans.reduce((sum, { weight, span }) => sum + (weight * Math.min(age, span)) / span, 0);
  let low = 0;
  let high = Math.max(...spans.map(({ span }) => span));
  for (let step = 0; step < 48; step++) {
    const middle = (low + high) / 2;
    if (younger(middle) < 1 - quantile) low = middle;
    else high = middle;
  }
  return nowMs - MIN_AGE - Math.floor(low);
}

const iso = (date: Date | null) => (date ? date.toISOString() : "\\N");

function chainRow(r: ChainRow, firstSeenMs: number): string {
  const firstSeen = new Date(firstSeenMs);
  return copyRow([
    copyField(r.chainId),
    copyField(r.sessionId),
    copyField(r.state),
    copyField(r.layer),
    copyTextArray(r.reasons),
    copyField(r.retrySafe),
    copyField(r.evidence),
    copyField(r.shadowedState),
    copyField(r.shadowedReason),
    iso(r.nextCheckAt),
    copyField(r.currentRecordId),
    String(r.currentSeq),
    iso(r.observedAt),
    iso(r.evaluatedAt),
    iso(firstSeen),
    iso(r.evaluatedAt),
    copyField(r.serverName),
    copyField(r.serverVersion),
    copyField(r.clientName),
    copyField(r.clientVersion),
    copyField(r.transport),
    copyField(r.tool),
    copyField(JSON.stringify(r.labels)),
    String(r.recordCount),
    copyField(r.requestId),
    copyField(r.operationKey),
  ]);
}

function changeRow(c: StateChange): string {
  return copyRow([
    copyField(c.chainId),
    copyField(c.fromState),
    copyField(c.toState),
    copyField(c.reason),
    iso(c.at),
    copyField(c.recordId),
    copyField(c.cause),
    iso(c.at),
  ]);
}
