/**
 * Redaction guard (contract §5): a record is evidence, not content. Any string value — or
 * object key — that looks like a credential rejects the whole record. Hits name the JSON
 * path and the pattern, never the value. The patterns are in `secret-patterns.ts`, matched by `secret-matching.ts`.
 */
import { forEachString, MAX_WALK_DEPTH, type PathSegment } from "./json-strings";
import { matchCredentialField, matchSecretPattern } from "./secret-matching";
import type { SecretPatternName } from "./secret-patterns";

export { matchCredentialField, matchSecretPattern } from "./secret-matching";
export { SECRET_PATTERNS, type SecretPatternName } from "./secret-patterns";

export type { PathSegment } from "./json-strings";

export type SecretHit = { path: string; pattern: SecretPatternName };

/** Every string value and object key in `value` that matches a credential pattern. */
export function findSecrets(value: unknown): SecretHit[] {
  const hits: SecretHit[] = [];
  // Almost every record is clean: a cheap yes/no pass first, paths only when needed.
  if (!containsSecret(value, 0)) return hits;
  forEachString(value, (text, path, where) => {
    const pattern = matchSecretPattern(text) ?? (where === "value" ? matchNamedValue(path, text) : undefined);
    if (pattern !== undefined) hits.push({ path: jsonPath(path), pattern });
  });
  return hits;
}

/** A string value under an object key that names a credential (`{"api_key": "3f9a…"}`). */
function matchNamedValue(path: readonly PathSegment[], text: string): SecretPatternName | undefined {
  const key = path[path.length - 1];
  return typeof key === "string" ? matchCredentialField(key, text) : undefined;
}

/** Whether `text` matches any credential pattern. */
export function looksLikeSecret(text: string): boolean {
  return matchSecretPattern(text) !== undefined;
}

function containsSecret(value: unknown, depth: number): boolean {
  if (typeof value === "string") return looksLikeSecret(value);
  if (typeof value !== "object" || value === null || depth >= MAX_WALK_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (containsSecret(item, depth + 1)) return true;
    return false;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const item = object[key];
    if (looksLikeSecret(key) || containsSecret(item, depth + 1)) return true;
    if (typeof item === "string" && matchCredentialField(key, item) !== undefined) return true;
  }
  return false;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Stands in for an object key that is itself a credential, so paths never leak one. */
export const REDACTED_KEY = "<redacted>";

/**
 * A JSON path rooted at `$`: `$.call.progress[2].token`, `$.labels["team name"]`.
 * Keys that match a credential pattern are replaced by `<redacted>`.
 */
export function jsonPath(segments: readonly PathSegment[]): string {
  let path = "$";
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (matchSecretPattern(segment) !== undefined) path += `[${JSON.stringify(REDACTED_KEY)}]`;
    else if (IDENTIFIER.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}
