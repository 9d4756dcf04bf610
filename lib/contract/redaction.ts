/**
 * Redaction guard (contract §5): a record is evidence, not content. Any string value — or
 * object key — that looks like a credential rejects the whole record. Hits name the JSON
 * path and the pattern, never the value. The patterns are in `secret-patterns.ts`.
 */
import { matchSecretPattern, type SecretPatternName } from "./secret-patterns";

export { matchSecretPattern, SECRET_PATTERNS, type SecretPatternName } from "./secret-patterns";

export type PathSegment = string | number;

export type SecretHit = { path: string; pattern: SecretPatternName };

/**
 * Deeper than any valid record (about 6 levels). Anything deeper is rejected by the strict
 * schema anyway, so the scan stops there instead of risking a stack overflow on hostile input.
 */
const MAX_SCAN_DEPTH = 64;

/** Every string value and object key in `value` that matches a credential pattern. */
export function findSecrets(value: unknown): SecretHit[] {
  const hits: SecretHit[] = [];
  // Almost every record is clean: a cheap yes/no pass first, paths only when needed.
  if (containsSecret(value, 0)) scan(value, [], hits);
  return hits;
}

/** Whether `text` matches any credential pattern. */
export function looksLikeSecret(text: string): boolean {
  return matchSecretPattern(text) !== undefined;
}

function containsSecret(value: unknown, depth: number): boolean {
  if (typeof value === "string") return looksLikeSecret(value);
  if (typeof value !== "object" || value === null || depth >= MAX_SCAN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (containsSecret(item, depth + 1)) return true;
    return false;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    if (looksLikeSecret(key) || containsSecret(object[key], depth + 1)) return true;
  }
  return false;
}

function scan(value: unknown, path: PathSegment[], hits: SecretHit[]): void {
  if (typeof value === "string") {
    const pattern = matchSecretPattern(value);
    if (pattern !== undefined) hits.push({ path: jsonPath(path), pattern });
    return;
  }
  if (typeof value !== "object" || value === null || path.length >= MAX_SCAN_DEPTH) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      scan(value[i], path, hits);
      path.pop();
    }
    return;
  }
  for (const key of Object.keys(value)) {
    path.push(key);
    const keyPattern = matchSecretPattern(key);
    if (keyPattern !== undefined) hits.push({ path: jsonPath(path), pattern: keyPattern });
    scan((value as Record<string, unknown>)[key], path, hits);
    path.pop();
  }
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
