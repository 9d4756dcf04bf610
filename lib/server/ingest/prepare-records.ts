import { setImmediate } from "node:timers/promises";
import { type Classification, classify } from "@/lib/classifier";
import { type HealthRecord, validateRecord } from "@/lib/contract";
import { ApiError, type ApiIssue } from "../http/api-error";

/** A record that passed validation, with its classification and the text that is stored. */
export type PreparedRecord = {
  index: number;
  record: HealthRecord;
  /** The record serialised once: the stored body, and what a re-sent record is compared with (`sameContent`). */
  json: string;
  observedAtMs: number;
  classification: Classification;
};

const RECORDS_BETWEEN_YIELDS = 100;

/**
 * Validates every record of a batch before anything is stored, so one bad record rejects the batch as a whole
 * and the answer lists every problem at once. Secrets win over schema errors in the code: the client must
 * treat the batch as leaking, not merely malformed. Lets the event loop run between slices of 100 records:
 * preparing a large batch in one piece would hold the server's one thread and with it the database round trips of
 * the other requests in flight.
 */
export async function prepareRecords(inputs: unknown[]): Promise<PreparedRecord[]> {
  const prepared: PreparedRecord[] = [];
  const issues: ApiIssue[] = [];
  let secretFound = false;
  for (const [index, input] of inputs.entries()) {
    if (index > 0 && index % RECORDS_BETWEEN_YIELDS === 0) await setImmediate();
    const result = prepareRecord(input, index);
    if (!result.ok) {
      secretFound ||= result.code === "secret_detected";
      for (const issue of result.issues) issues.push({ index, ...issue });
      continue;
    }
    prepared.push(result.prepared);
  }
  if (issues.length > 0) {
    throw secretFound
      ? new ApiError(422, "secret_detected", "a record contains a credential; nothing was stored", issues)
      : new ApiError(422, "invalid_records", "the batch has invalid records; nothing was stored", issues);
  }
  rejectConflictsWithinBatch(prepared);
  return prepared;
}

/** One record: validated (schema, secret guard, storable text), then classified; or why it was refused. */
export function prepareRecord(
  input: unknown,
  index: number,
): { ok: true; prepared: PreparedRecord } | { ok: false; code: string; issues: Omit<ApiIssue, "index">[] } {
  const result = validateRecord(input);
  if (!result.ok) return { ok: false, code: result.code, issues: result.issues };
  return {
    ok: true,
    prepared: {
      index,
      record: result.record,
      json: JSON.stringify(result.record),
      observedAtMs: Date.parse(result.record.observedAt),
      classification: classify(result.record),
    },
  };
}

/** Deep equality of two JSON values, ignoring object key order. */
export function sameContent(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      sameContent((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

export function recordConflict(recordIds: string[], indexes: number[]): ApiError {
  return new ApiError(
    409,
    "record_conflict",
    "a recordId is already stored with different content; nothing was stored",
    recordIds.map((_, i) => ({
      index: indexes[i],
      path: "$.recordId",
      code: "record_conflict",
      message: "this recordId is already stored with different content",
    })),
  );
}

function rejectConflictsWithinBatch(prepared: PreparedRecord[]) {
  const seen = new Map<string, PreparedRecord>();
  const conflicting: PreparedRecord[] = [];
  for (const item of prepared) {
    const previous = seen.get(item.record.recordId);
    if (previous === undefined) seen.set(item.record.recordId, item);
    else if (previous.json !== item.json && !sameContent(previous.record, item.record)) {
      conflicting.push(item);
    }
  }
  if (conflicting.length > 0) {
    throw recordConflict(
      conflicting.map((item) => item.record.recordId),
      conflicting.map((item) => item.index),
    );
  }
}
