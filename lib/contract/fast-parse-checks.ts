/**
 * The field checks of the validation fast path (fast-parse.ts): each either returns or throws NOT_SURE, which sends
 * the record to zod. Free-text strings are checked for credentials here, in the same pass.
 */
import { isAddressableId } from "./limits";
import { ID_PATTERN, VERSION_PATTERN } from "./record-fields";
import { looksLikeSecret } from "./redaction";
import { isStorableString } from "./storable";
import { parseStorableTimestamp } from "./timestamp";

export type Obj = Record<string, unknown>;
export type Check = (value: unknown) => void;

/** Thrown internally to abandon the fast path; never escapes `fastParseRecord`. */
export const NOT_SURE = Symbol("not sure");

export function fail(): never {
  throw NOT_SURE;
}

/** `seen` is set when an optional field is `null`: the result then needs a null-free copy. */
export const nulls = { seen: false };

export function object(value: unknown, allowed: ReadonlySet<string>): Obj {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail();
  if (Object.getPrototypeOf(value) !== Object.prototype) fail();
  // for-in skips the key array Object.keys would allocate; with Object.prototype as the
  // prototype it only sees own keys (a polluted prototype fails, leaving it to zod).
  for (const key in value) if (!allowed.has(key)) fail();
  return value as Obj;
}

export const keys = (...names: string[]): ReadonlySet<string> => new Set(names);

/** Runs `check` on `source[key]` unless it is absent; `null` counts as absent (and is noted). */
export function optional(source: Obj, key: string, check: Check): void {
  const value = source[key];
  if (value === null) nulls.seen = true;
  else if (value !== undefined) check(value);
}

/** A free-text string: checked for credentials and for what PostgreSQL cannot store. */
export function string(value: unknown, max = Number.POSITIVE_INFINITY): void {
  if (typeof value !== "string" || value.length > max || looksLikeSecret(value) || !isStorableString(value))
    fail();
}

/** A string with a restricted pattern; `mayHoldSecret` when the pattern's charset could spell one. */
export function matching(value: unknown, pattern: RegExp, mayHoldSecret: boolean): void {
  if (typeof value !== "string" || !pattern.test(value)) fail();
  if (mayHoldSecret && looksLikeSecret(value)) fail();
}

// Ids allow letters, digits and "._:-": enough to spell "sk-…" or "AKIA…", so they are checked.
export const id: Check = (value) => {
  matching(value, ID_PATTERN, true);
  if (!isAddressableId(value as string)) fail();
};
// Digits and dashes only.
export const version: Check = (value) => matching(value, VERSION_PATTERN, false);

/** Digits, "T", "Z", ":", ".", "+" and "-" cannot spell a credential: not checked. */
export const timestamp: Check = (value) => {
  if (typeof value !== "string" || parseStorableTimestamp(value) === undefined) fail();
};

export function integer(value: unknown, min = Number.NEGATIVE_INFINITY): number {
  if (!Number.isSafeInteger(value) || (value as number) < min) fail();
  return value as number;
}

export const finite: Check = (value) => {
  if (typeof value !== "number" || !Number.isFinite(value)) fail();
};

export const boolean: Check = (value) => {
  if (typeof value !== "boolean") fail();
};

export function oneOf(value: unknown, options: readonly string[]): void {
  if (!options.includes(value as string)) fail();
}

export const jsonRpcId: Check = (value) => {
  if (typeof value === "string") string(value);
  else integer(value);
};

export function array(value: unknown, item: Check, minLength = 0): void {
  if (!Array.isArray(value) || value.length < minLength) fail();
  for (const entry of value) item(entry);
}

/**
 * Only the plain form: lower-case http(s)://, no whitespace anywhere (so zod's trimming and
 * tab/newline stripping change nothing), no query or fragment (the record's URLs carry neither),
 * parseable, ≤ 2048. Any other spelling goes to zod.
 */
const PLAIN_HTTP_URL = /^https?:\/\/[^\s?#]+$/;
export const plainHttpUrl: Check = (value) => {
  if (typeof value !== "string" || value.length > 2048 || !PLAIN_HTTP_URL.test(value) || !canParseUrl(value))
    fail();
  if (looksLikeSecret(value) || !isStorableString(value)) fail();
};

function canParseUrl(value: string): boolean {
  if (typeof URL.canParse === "function") return URL.canParse(value);
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
