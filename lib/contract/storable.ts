/**
 * Strings PostgreSQL can store. A `text` value cannot hold U+0000, and a `json` value holding `\u0000` or an
 * unpaired UTF-16 surrogate is accepted on input but fails every later read that extracts text from it ("unsupported
 * Unicode escape sequence"): one such record would break each job that reads it. So every string and object key that
 * reaches storage must be free of both.
 */
import { forEachString } from "./json-strings";
import { jsonPath } from "./redaction";

/** The issue code for a string PostgreSQL cannot store; stable API. */
export const UNSTORABLE_STRING = "unstorable_string";

export const UNSTORABLE_STRING_MESSAGE =
  "strings cannot hold U+0000 (NUL) or an unpaired UTF-16 surrogate (\\uD800-\\uDFFF)";

/** `String.prototype.isWellFormed` (ES2024, Node 20+); the project's ES2023 lib has no type for it. */
type WellFormedCheck = string & { isWellFormed(): boolean };

/**
 * Whether `text` is free of NUL and of unpaired surrogates (a surrogate pair, e.g. an emoji, is fine). Runs on every
 * free-text string of every record: `includes` and the native `isWellFormed` cost a fraction of a regex test.
 */
export function isStorableString(text: string): boolean {
  return !text.includes("\u0000") && (text as WellFormedCheck).isWellFormed();
}

export type UnstorableHit = { path: string; where: "key" | "value" };

/** Every string value and object key in `value` that PostgreSQL cannot store, by JSON path (`$.labels.x`). */
export function findUnstorableStrings(value: unknown): UnstorableHit[] {
  const hits: UnstorableHit[] = [];
  forEachString(value, (text, path, where) => {
    if (!isStorableString(text)) hits.push({ path: jsonPath(path), where });
  });
  return hits;
}
