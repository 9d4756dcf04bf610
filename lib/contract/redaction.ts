/**
 * Redaction guard (contract §5): a record is evidence, not content. Any string value — or
 * object key — that looks like a credential rejects the whole record. Hits name the JSON
 * path and the pattern, never the value.
 */

/** Credential patterns by stable name. Anchored on prefixes so matching stays linear. */
export const SECRET_PATTERNS = {
  bearer_token: /[Bb][Ee][Aa][Rr][Ee][Rr]\s+[A-Za-z0-9._~+/-]{8,}/,
  jwt: /eyJ[A-Za-z0-9_-]{2,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/,
  pem_private_key: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/,
  // sk-/pk-/rk- keys (OpenAI, Anthropic, Stripe-style) with a body of 16+ characters.
  api_key: /(?<![A-Za-z0-9])(?:sk|pk|rk)(?:-|_live_|_test_)[A-Za-z0-9_-]{16,}/,
  github_token: /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})/,
  slack_token: /(?<![A-Za-z0-9])xox[a-z]-[A-Za-z0-9-]{8,}/,
  aws_access_key_id: /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/,
} as const satisfies Record<string, RegExp>;

export type SecretPatternName = keyof typeof SECRET_PATTERNS;

const PATTERN_NAMES = Object.keys(SECRET_PATTERNS) as SecretPatternName[];

/**
 * All patterns as one alternation with one capture group per pattern, so each string is
 * scanned once; the group that matched names the pattern.
 */
const COMBINED = new RegExp(PATTERN_NAMES.map((name) => `(${SECRET_PATTERNS[name].source})`).join("|"));

/** The name of the first credential pattern `text` matches, or `undefined`. */
export function matchSecretPattern(text: string): SecretPatternName | undefined {
  const match = COMBINED.exec(text);
  if (match === null) return undefined;
  for (let group = 1; group < match.length; group++) {
    if (match[group] !== undefined) return PATTERN_NAMES[group - 1];
  }
  return undefined;
}

/** The shortest string any pattern can match (a JWT: `eyJxx.eyJxx.`); shorter ones skip the regex. */
const MIN_SECRET_LENGTH = 12;

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

/** Whether `text` matches any credential pattern (cheaper than `matchSecretPattern`). */
export function looksLikeSecret(text: string): boolean {
  return text.length >= MIN_SECRET_LENGTH && COMBINED.test(text);
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
    if (value.length < MIN_SECRET_LENGTH) return;
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
    const keyPattern = key.length < MIN_SECRET_LENGTH ? undefined : matchSecretPattern(key);
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
