import { createHash } from "node:crypto";
import { setImmediate } from "node:timers/promises";
import { type Classification, classify } from "@/lib/classifier";
import { type HealthRecord, validateRecord } from "@/lib/contract";
import { ApiError, type ApiIssue } from "../http/api-error";

/** A record that passed validation, with its classification and the hash that makes re-sending it idempotent. */
export type PreparedRecord = {
  index: number;
  record: HealthRecord;
  /** The record serialised once, for its hash and for the row that stores it. */
  json: string;
  contentHash: string;
  observedAtMs: number;
  classification: Classification;
};

/**
 * Validates every record of a batch before anything is stored, so one bad record rejects the batch as a whole
 * and the answer lists every problem at once. Secrets win over schema errors in the code: the client must
 * treat the batch as leaking, not merely malformed.
 */
export function prepareRecords(inputs: unknown[]): PreparedRecord[] {
  const batch = new BatchPreparation();
  for (const [index, input] of inputs.entries()) batch.add(input, index);
  return batch.finish();
}

const RECORDS_BETWEEN_YIELDS = 100;

/**
 * `prepareRecords` for the server: it lets the event loop run between slices of 100 records. Preparing 1000
 * records is ~50 ms of one thread; in one piece it holds up the database round trips of the other requests in
 * flight, and their connections sit idle meanwhile.
 */
export async function prepareRecordsYielding(inputs: unknown[]): Promise<PreparedRecord[]> {
  const batch = new BatchPreparation();
  for (let index = 0; index < inputs.length; index++) {
    if (index > 0 && index % RECORDS_BETWEEN_YIELDS === 0) await setImmediate();
    batch.add(inputs[index], index);
  }
  return batch.finish();
}

class BatchPreparation {
  private readonly prepared: PreparedRecord[] = [];
  private readonly issues: ApiIssue[] = [];
  private secretFound = false;

  add(input: unknown, index: number): void {
    const result = validateRecord(input);
    if (!result.ok) {
      this.secretFound ||= result.code === "secret_detected";
      for (const issue of result.issues) this.issues.push({ index, ...issue });
      return;
    }
    const json = JSON.stringify(result.record);
    this.prepared.push({
      index,
      record: result.record,
      json,
      contentHash: hashOf(json),
      observedAtMs: Date.parse(result.record.observedAt),
      classification: classify(result.record),
    });
  }

  finish(): PreparedRecord[] {
    if (this.issues.length > 0) {
      throw this.secretFound
        ? new ApiError(
            422,
            "secret_detected",
            "a record contains a credential; nothing was stored",
            this.issues,
          )
        : new ApiError(
            422,
            "invalid_records",
            "the batch has invalid records; nothing was stored",
            this.issues,
          );
    }
    rejectConflictsWithinBatch(this.prepared);
    return this.prepared;
  }
}

/**
 * Fingerprint of a record's content as sent: a re-sent record is byte-for-byte the same JSON in practice, so equal
 * hashes mean a duplicate. Unequal hashes of one recordId are compared again key-order-insensitively
 * (`sameContent`) before a conflict is declared, so a producer that orders keys differently is not refused.
 */
export function contentHash(record: HealthRecord): string {
  return hashOf(JSON.stringify(record));
}

const hashOf = (json: string) => createHash("sha256").update(json).digest("hex");

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
    else if (previous.contentHash !== item.contentHash && !sameContent(previous.record, item.record)) {
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
