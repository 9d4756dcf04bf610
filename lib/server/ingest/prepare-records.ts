import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { type Classification, classify } from "@/lib/classifier";
import { type HealthRecord, validateRecord } from "@/lib/contract";
import { ApiError, type ApiIssue } from "../http/api-error";

/** A record that passed validation, with its classification and the hash that makes re-sending it idempotent. */
export type PreparedRecord = {
  index: number;
  record: HealthRecord;
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
  const prepared: PreparedRecord[] = [];
  const issues: ApiIssue[] = [];
  let secretFound = false;
  inputs.forEach((input, index) => {
    const result = validateRecord(input);
    if (!result.ok) {
      secretFound ||= result.code === "secret_detected";
      for (const issue of result.issues) issues.push({ index, ...issue });
      return;
    }
    prepared.push({
      index,
      record: result.record,
      contentHash: contentHash(result.record),
      observedAtMs: Date.parse(result.record.observedAt),
      classification: classify(result.record),
    });
  });
  if (issues.length > 0) {
    throw secretFound
      ? new ApiError(422, "secret_detected", "a record contains a credential; nothing was stored", issues)
      : new ApiError(422, "invalid_records", "the batch has invalid records; nothing was stored", issues);
  }
  rejectConflictsWithinBatch(prepared);
  return prepared;
}

export function contentHash(record: HealthRecord): string {
  return createHash("sha256")
    .update(canonicalize(record) ?? "")
    .digest("hex");
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
  const seen = new Map<string, string>();
  const conflicting: PreparedRecord[] = [];
  for (const item of prepared) {
    const previous = seen.get(item.record.recordId);
    if (previous !== undefined && previous !== item.contentHash) conflicting.push(item);
    else seen.set(item.record.recordId, item.contentHash);
  }
  if (conflicting.length > 0) {
    throw recordConflict(
      conflicting.map((item) => item.record.recordId),
      conflicting.map((item) => item.index),
    );
  }
}
