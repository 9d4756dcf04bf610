import type { z } from "zod";
import { fastParseRecord } from "./fast-parse";
import { type HealthRecord, ZHealthRecord } from "./record";
import { findSecrets, jsonPath, type PathSegment, type SecretHit } from "./redaction";
import {
  findUnstorableStrings,
  UNSTORABLE_STRING,
  UNSTORABLE_STRING_MESSAGE,
  type UnstorableHit,
} from "./storable";

/** One problem with a record. `message` never contains a value from the record. */
export type ValidationIssue = { path: string; code: string; message: string };

export type ValidationErrorCode = "invalid_record" | "secret_detected";

export type ValidationResult =
  | { ok: true; record: HealthRecord }
  | { ok: false; code: ValidationErrorCode; issues: ValidationIssue[] };

export const SECRET_ISSUE_CODE = "secret_detected";

/**
 * Validates untrusted input against health record v1. Errors are data, never exceptions.
 *
 * Well-formed, clean records take the hand-written fast path (`fast-parse.ts`), which also
 * checks every free-text field for credentials. Anything else goes the slow way: the secret
 * scan runs on the raw input, independently of the schema, so a credential in an unknown
 * field (which the schema only reports as "unknown") is still named as a credential; then
 * zod reports schema issues. A record with any secret is `secret_detected`, with the schema
 * issues listed after the secret issues so the producer can fix everything in one round.
 * Strings PostgreSQL cannot store are found the same way, in keys and unknown fields too.
 *
 * The input is never modified. A valid record without nulls is returned as is (it already is
 * exactly the record), so treat input and result as immutable.
 */
export function validateRecord(input: unknown): ValidationResult {
  const fast = fastParseRecord(input);
  if (fast !== undefined) return { ok: true, record: fast };
  const secrets = findSecrets(input);
  const unstorable = findUnstorableStrings(input);
  const parsed = ZHealthRecord.safeParse(input);
  if (secrets.length === 0 && unstorable.length === 0 && parsed.success) {
    return { ok: true, record: removeNulls(parsed.data) as HealthRecord };
  }
  const issues = [...secrets.map(secretIssue), ...unstorable.map(unstorableIssue)];
  // The schema reports the unstorable strings of known fields again; the scan above already named each one.
  const named = new Set(unstorable.map((hit) => hit.path));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      for (const mapped of schemaIssues(issue)) {
        if (mapped.code !== UNSTORABLE_STRING || !named.has(mapped.path)) issues.push(mapped);
      }
    }
  }
  return { ok: false, code: secrets.length > 0 ? "secret_detected" : "invalid_record", issues };
}

function unstorableIssue(hit: UnstorableHit): ValidationIssue {
  return {
    path: hit.path,
    code: UNSTORABLE_STRING,
    message: hit.where === "key" ? `object key: ${UNSTORABLE_STRING_MESSAGE}` : UNSTORABLE_STRING_MESSAGE,
  };
}

function secretIssue(hit: SecretHit): ValidationIssue {
  return {
    path: hit.path,
    code: SECRET_ISSUE_CODE,
    message: `value matches credential pattern '${hit.pattern}'`,
  };
}

/**
 * Maps one zod issue to ours. Zod 4's messages describe the expectation, not the received
 * value, with one exception: `unrecognized_keys` quotes the key names. Those are split into
 * one issue per key whose path points at the key (redacted if the key is a credential).
 */
function schemaIssues(issue: z.core.$ZodIssue): ValidationIssue[] {
  const path = issue.path.map(toSegment);
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => ({
        path: jsonPath([...path, key]),
        code: "unrecognized_keys",
        message: "unknown field (the schema is strict)",
      }));
    case "invalid_key":
      return [
        {
          path: jsonPath(path),
          code: "invalid_key",
          message: issue.issues[0]?.message ?? "invalid key",
        },
      ];
    case "custom": {
      const code = typeof issue.params?.code === "string" ? issue.params.code : "custom";
      return [{ path: jsonPath(path), code, message: issue.message }];
    }
    default:
      return [{ path: jsonPath(path), code: issue.code, message: issue.message }];
  }
}

function toSegment(key: PropertyKey): PathSegment {
  return typeof key === "symbol" ? String(key) : key;
}

/** `null` means "no evidence", like absence; dropping it gives consumers one case to handle. */
function removeNulls(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (const item of value) removeNulls(item);
  } else if (typeof value === "object" && value !== null) {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      if (object[key] === null) delete object[key];
      else removeNulls(object[key]);
    }
  }
  return value;
}
