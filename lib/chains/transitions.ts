import type { Classification } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";

/** What the chain table holds of a chain's current record: enough to order newer evidence after it. */
export type ChainHead = {
  chainId: string;
  state: string;
  observedAtMs: number;
  currentSeq: bigint;
  recordCount: number;
};

export type StoredRecord = {
  seq: bigint;
  /** Position in its batch: the order of receipt between records of one batch. */
  index: number;
  record: HealthRecord;
  observedAtMs: number;
  classification: Classification;
};

export type ChainRow = {
  chainId: string;
  sessionId: string;
  state: string;
  layer: string;
  reasons: string[];
  retrySafe: boolean | null;
  evidence: string | null;
  shadowedState: string | null;
  shadowedReason: string | null;
  nextCheckAt: Date | null;
  currentRecordId: string;
  currentSeq: bigint;
  observedAt: Date;
  evaluatedAt: Date;
  serverName: string | null;
  serverVersion: string | null;
  clientName: string;
  clientVersion: string;
  transport: string;
  tool: string | null;
  labels: Record<string, string>;
  recordCount: number;
  /** The call's JSON-RPC id as text (a number in decimal) and its operation key: what search finds it by. */
  requestId: string | null;
  operationKey: string | null;
};

export type StateChange = {
  chainId: string;
  fromState: string | null;
  toState: string;
  reason: string;
  at: Date;
  recordId: string | null;
  cause: "record" | "deadline" | "reconcile" | "reclassify";
};

/**
 * Applies newly stored records to a chain. Records newer than the chain's current one become current in turn,
 * and each change of state is one history row; an older record arriving late is counted but changes nothing.
 * Returns `row: null` when the chain's current classification did not move.
 */
export function applyRecordsToChain(
  head: ChainHead | null,
  records: StoredRecord[],
): { row: ChainRow | null; changes: StateChange[]; recordCount: number } {
  // Receipt order breaks ties of observedAt ("last received wins"). Records are applied under the chain's lock,
  // so everything in `records` was received after the head's record; within a batch, later position is later.
  const ordered = [...records].sort((a, b) => a.observedAtMs - b.observedAtMs || a.index - b.index);
  let current: { state: string; observedAtMs: number } | null = head
    ? { state: head.state, observedAtMs: head.observedAtMs }
    : null;
  let newest: StoredRecord | null = null;
  const changes: StateChange[] = [];
  for (const stored of ordered) {
    if (current && stored.observedAtMs < current.observedAtMs) continue;
    const { state, reasons } = stored.classification;
    if (current?.state !== state) {
      changes.push({
        chainId: stored.record.chainId,
        fromState: current?.state ?? null,
        toState: state,
        reason: reasons[0] ?? "",
        at: new Date(stored.observedAtMs),
        recordId: stored.record.recordId,
        cause: "record",
      });
    }
    current = { state, observedAtMs: stored.observedAtMs };
    newest = stored;
  }
  const recordCount = (head?.recordCount ?? 0) + records.length;
  return { row: newest ? chainRowFor(newest, recordCount) : null, changes, recordCount };
}

export function chainRowFor(stored: StoredRecord, recordCount: number, evaluatedAt?: Date): ChainRow {
  const { record, classification } = stored;
  return {
    chainId: record.chainId,
    sessionId: record.session.id,
    ...classificationColumns(classification),
    currentRecordId: record.recordId,
    currentSeq: stored.seq,
    observedAt: new Date(stored.observedAtMs),
    evaluatedAt: evaluatedAt ?? new Date(stored.observedAtMs),
    serverName: record.session.server?.name ?? null,
    serverVersion: record.session.server?.version ?? null,
    clientName: record.session.client.name,
    clientVersion: record.session.client.version,
    transport: record.session.transport,
    tool: record.call?.tool ?? null,
    labels: record.labels ?? {},
    recordCount,
    requestId: record.call ? String(record.call.requestId) : null,
    operationKey: record.call?.operationKey ?? null,
  };
}

export function classificationColumns(classification: Classification) {
  return {
    state: classification.state,
    layer: classification.layer,
    reasons: [...classification.reasons],
    retrySafe: classification.retrySafe ?? null,
    evidence: classification.evidence ?? null,
    shadowedState: classification.shadowed?.state ?? null,
    shadowedReason: classification.shadowed?.reason ?? null,
    nextCheckAt: classification.nextCheckAt ? new Date(classification.nextCheckAt) : null,
  };
}
