/**
 * The health record's field schemas (contract §1): ids, timestamps, free text, URLs, durations and labels, with the
 * limits, patterns and custom issue codes `record.ts` and the fast path (`fast-parse.ts`) share.
 */
import "../zod-without-eval";
import { z } from "zod";
import { isStorableString, UNSTORABLE_STRING, UNSTORABLE_STRING_MESSAGE } from "./storable";
import { isAddressableId, MAX_DURATION_MS } from "./limits";
import { isTimestamp, isTimestampInRange, parseTimestamp } from "./timestamp";

/** Custom issue codes for rules zod cannot express on its own; stable API like zod's codes. */
export const RECORD_ISSUE_CODES = {
  invalidTimestamp: "invalid_timestamp",
  timestampOutOfRange: "timestamp_out_of_range",
  unstorableString: UNSTORABLE_STRING,
  unaddressableId: "unaddressable_id",
  deadlineOutOfRange: "deadline_out_of_range",
  tooManyLabels: "too_many_labels",
  responseErrorMismatch: "response_error_mismatch",
  taskWithoutTaskResult: "task_without_task_result",
  inactivityExceedsDeadline: "inactivity_exceeds_deadline",
  urlHasQuery: "url_has_query",
  catalogNotObservedButPresent: "catalog_not_observed_but_present",
  handshakeNotObservedButInitialized: "handshake_not_observed_but_initialized",
} as const;

export const MAX_LABELS = 16;
export const MAX_LABEL_VALUE_LENGTH = 256;
export const LABEL_KEY_PATTERN = /^[a-z][a-z0-9_.-]{0,62}$/;
export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const VERSION_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
export const SCHEMA_HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** Attaches a stable custom code that `validateRecord` reports instead of zod's generic "custom". */
export function custom(code: string, message: string) {
  return { message, params: { code } };
}

export const ZId = z
  .string()
  .regex(ID_PATTERN, "expected an id: 1-128 characters of A-Z a-z 0-9 . _ : -")
  .refine(
    isAddressableId,
    custom(RECORD_ISSUE_CODES.unaddressableId, 'an id cannot be "." or ".." (it could not appear in a URL)'),
  );
export const ZTimestamp = z
  .string()
  .refine(
    isTimestamp,
    custom(
      RECORD_ISSUE_CODES.invalidTimestamp,
      "expected an RFC 3339 timestamp with a zone, e.g. 2026-11-30T10:00:00.000Z",
    ),
  )
  .refine(
    (value) => {
      const ms = parseTimestamp(value);
      return ms === undefined || isTimestampInRange(ms);
    },
    custom(RECORD_ISSUE_CODES.timestampOutOfRange, "timestamps lie in years 0001 to 9999 (UTC)"),
  );
/** Free text: any string PostgreSQL can store (no NUL, no unpaired surrogate), at most `max` characters. */
export const ZText = (max?: number) =>
  (max === undefined ? z.string() : z.string().max(max)).refine(
    isStorableString,
    custom(UNSTORABLE_STRING, UNSTORABLE_STRING_MESSAGE),
  );
export const ZDuration = z.int().positive().max(MAX_DURATION_MS, `at most ${MAX_DURATION_MS} ms (365 days)`);
export const ZVersion = z.string().regex(VERSION_PATTERN, "expected a protocol version YYYY-MM-DD");
const ZUrl = z
  .url({ protocol: /^https?$/, error: "expected an http(s) URL" })
  .max(2048)
  .refine(isStorableString, custom(UNSTORABLE_STRING, UNSTORABLE_STRING_MESSAGE));
/**
 * The challenged endpoint and its metadata document are identified by scheme, host and path
 * (contract §1: "without query string"); a query or fragment is where tokens and signatures ride.
 */
export const ZResourceUrl = ZUrl.refine(
  (url) => !url.includes("?") && !url.includes("#"),
  custom(RECORD_ISSUE_CODES.urlHasQuery, "expected a URL without a query string or fragment"),
);
export const ZJsonRpcId = z.union([ZText(), z.int()], { error: "expected a string or an integer" });
export const ZRpcError = z.strictObject({ code: z.int(), class: ZText(64) });

export const ZVerifier = z.enum(["file_hash", "db_row", "http_status", "test", "llm_judge", "other"]);

/**
 * Labels, checked by hand: `z.record` costs over a microsecond per key, which alone would
 * eat the validation budget (issue 3: ≥ 50,000 records/s). Issues keep zod's codes and
 * per-key paths (`invalid_type`, `invalid_key`, `too_big`).
 */
export const ZLabels = z
  .custom<Record<string, string>>(
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    custom("invalid_type", "expected an object of string labels"),
  )
  .superRefine((labels, ctx) => {
    const keys = Object.keys(labels);
    if (keys.length > MAX_LABELS) {
      ctx.addIssue({
        code: "custom",
        ...custom(RECORD_ISSUE_CODES.tooManyLabels, `at most ${MAX_LABELS} labels`),
      });
    }
    for (const key of keys) {
      const value = labels[key];
      if (!LABEL_KEY_PATTERN.test(key)) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          ...custom("invalid_key", "label keys match ^[a-z][a-z0-9_.-]{0,62}$"),
        });
      }
      if (typeof value !== "string") {
        ctx.addIssue({
          code: "custom",
          path: [key],
          ...custom("invalid_type", "expected a string label value"),
        });
      } else if (value.length > MAX_LABEL_VALUE_LENGTH) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          ...custom("too_big", `label values have at most ${MAX_LABEL_VALUE_LENGTH} characters`),
        });
      } else if (!isStorableString(value)) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          ...custom(UNSTORABLE_STRING, UNSTORABLE_STRING_MESSAGE),
        });
      }
    }
  })
  // A copy, like every other level of the parsed record (spread keeps "__proto__" an own key).
  .transform((labels) => ({ ...labels }));
