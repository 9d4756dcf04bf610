/**
 * A hand-written fast path for `validateRecord` on well-formed input.
 *
 * Zod costs ~10 µs per record, which alone would miss the ingestion budget (issue 3:
 * ≥ 50,000 validated and classified records/s on one core). This checks the same rules as
 * `ZHealthRecord` directly and builds the same null-free copy. It only ever says "valid, here
 * is the record" or "not sure": on `undefined` the zod schema decides and reports the issues,
 * so zod stays the single authority on errors.
 *
 * It also applies the redaction guard (§5) in the same pass: every free-text string and
 * label key is checked for credentials; a hit means "not sure", and the slow path names it.
 * Only timestamps, versions, the schema hash and enum values skip the check: their
 * character sets cannot spell any credential pattern. Unusual spellings (a URL with upper-case
 * scheme, a non-plain object) are left to zod. A property test asserts that whatever this
 * accepts, zod accepts with the same output.
 */
import type { HealthRecord } from "./record";
import {
  ID_PATTERN,
  LABEL_KEY_PATTERN,
  MAX_LABEL_VALUE_LENGTH,
  MAX_LABELS,
  SCHEMA_HASH_PATTERN,
  VERSION_PATTERN,
} from "./record";
import { looksLikeSecret } from "./redaction";
import { parseTimestamp } from "./timestamp";

type Obj = Record<string, unknown>;

/** Thrown internally to abandon the fast path; never escapes `fastParseRecord`. */
const NOT_SURE = Symbol("not sure");

function fail(): never {
  throw NOT_SURE;
}

function object(value: unknown, allowed: ReadonlySet<string>): Obj {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail();
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) fail();
  // for-in skips the key array Object.keys would allocate; with Object.prototype as the
  // prototype it only sees own keys (a polluted prototype fails, leaving it to zod).
  for (const key in value) if (!allowed.has(key)) fail();
  return value as Obj;
}

const keys = (...names: string[]): ReadonlySet<string> => new Set(names);

const absent = (value: unknown): value is null | undefined => value === undefined || value === null;

/** A free-text string: checked for credentials. */
function string(value: unknown, max = Number.POSITIVE_INFINITY): string {
  if (typeof value !== "string" || value.length > max || looksLikeSecret(value)) fail();
  return value;
}

/** A string with a restricted pattern; `mayHoldSecret` when the pattern's charset could spell one. */
function matching(value: unknown, pattern: RegExp, mayHoldSecret: boolean): string {
  if (typeof value !== "string" || !pattern.test(value)) fail();
  if (mayHoldSecret && looksLikeSecret(value)) fail();
  return value;
}

// Ids allow letters, digits and "._:-": enough to spell "sk-…" or "AKIA…", so they are checked.
const id = (value: unknown) => matching(value, ID_PATTERN, true);
// Digits and dashes only.
const version = (value: unknown) => matching(value, VERSION_PATTERN, false);

/** Digits, "T", "Z", ":", ".", "+" and "-" cannot spell a credential: not checked. */
function timestamp(value: unknown): string {
  if (typeof value !== "string" || parseTimestamp(value) === undefined) fail();
  return value;
}

function integer(value: unknown, min = Number.NEGATIVE_INFINITY): number {
  if (!Number.isSafeInteger(value) || (value as number) < min) fail();
  return value as number;
}

function finite(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) fail();
  return value;
}

function boolean(value: unknown): boolean {
  if (typeof value !== "boolean") fail();
  return value;
}

function oneOf<T extends string>(value: unknown, options: readonly T[]): T {
  if (!options.includes(value as T)) fail();
  return value as T;
}

function jsonRpcId(value: unknown): string | number {
  return typeof value === "string" ? string(value) : integer(value);
}

function array<T>(value: unknown, item: (entry: unknown) => T, minLength = 0): T[] {
  if (!Array.isArray(value) || value.length < minLength) fail();
  return value.map(item);
}

/** Copies `source[key]` through `parse` into `target` unless it is absent (null = absent). */
function optional<T>(target: Obj, source: Obj, key: string, parse: (value: unknown) => T): void {
  const value = source[key];
  if (!absent(value)) target[key] = parse(value);
}

const TRANSPORTS = ["stdio", "streamable-http", "sse", "other"] as const;
const ERAS = ["legacy", "modern"] as const;
const RESPONSE_KINDS = ["result", "error"] as const;
const RESULT_TYPES = ["complete", "input_required", "task"] as const;
const TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"] as const;
const EFFECT_STATUSES = ["committed", "absent", "unknown"] as const;
const VERDICTS = ["pass", "fail", "unavailable"] as const;
const SIDE_EFFECTS = ["none", "write", "unknown"] as const;
const VERIFIERS = ["file_hash", "db_row", "http_status", "test", "llm_judge", "other"] as const;

/**
 * Only the plain form: lower-case http(s)://, no whitespace anywhere (so zod's trimming and
 * tab/newline stripping change nothing), parseable, ≤ 2048. Any other spelling goes to zod.
 */
const PLAIN_HTTP_URL = /^https?:\/\/\S+$/;
function plainHttpUrl(value: unknown): string {
  if (typeof value !== "string" || value.length > 2048 || !PLAIN_HTTP_URL.test(value) || !canParseUrl(value))
    fail();
  return value;
}

function canParseUrl(value: string): boolean {
  if (typeof URL.canParse === "function") return URL.canParse(value);
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

// Named single-argument parsers for `optional` and `array` (no closures allocated per record).
const string64 = (value: unknown) => string(value, 64);
const string256 = (value: unknown) => string(value, 256);
const string512 = (value: unknown) => string(value, 512);
const anyString = (value: unknown) => string(value);
const names = (value: unknown) => array(value, anyString);
const versions = (value: unknown) => array(value, version);
const positiveInteger = (value: unknown) => integer(value, 1);
const verifier = (value: unknown) => oneOf(value, VERIFIERS);
const resultType = (value: unknown) => oneOf(value, RESULT_TYPES);
const taskResult = (value: unknown) => ({ isError: boolean(object(value, TASK_RESULT_KEYS).isError) });

const RECORD_KEYS = keys(
  "schemaVersion",
  "recordId",
  "chainId",
  "observedAt",
  "labels",
  "session",
  "catalog",
  "call",
);
const NAME_VERSION_KEYS = keys("name", "version");
const SESSION_KEYS = keys("id", "client", "server", "transport", "auth", "protocol", "capabilities");
const AUTH_KEYS = keys("challenge", "resolvedAt");
const CHALLENGE_KEYS = keys("status", "at", "error", "requiredScope", "resourceMetadataUrl", "resource");
const PROTOCOL_KEYS = keys(
  "era",
  "requestedVersion",
  "acceptedVersion",
  "clientSupportedVersions",
  "serverSupportedVersions",
  "initializedAt",
);
const CAPABILITIES_KEYS = keys("server", "client", "required");
const REQUIRED_KEYS = keys("server", "client");
const CATALOG_KEYS = keys(
  "pages",
  "complete",
  "toolCount",
  "schemaHash",
  "refreshedAt",
  "ttlMs",
  "listChangedAt",
);
const CALL_KEYS = keys(
  "requestId",
  "tool",
  "inCatalog",
  "sideEffect",
  "operationKey",
  "expectedVerifier",
  "startedAt",
  "deadlineMs",
  "inactivityMs",
  "progressToken",
  "progress",
  "cancelledAt",
  "response",
  "task",
  "effect",
  "outcome",
);
const PROGRESS_KEYS = keys("at", "token", "progress", "total");
const RESPONSE_KEYS = keys("at", "kind", "error", "isError", "resultType");
const RPC_ERROR_KEYS = keys("code", "class");
const TASK_KEYS = keys("id", "status", "updatedAt", "polledAt", "result", "error");
const TASK_RESULT_KEYS = keys("isError");
const EFFECT_KEYS = keys("checkedAt", "status", "receipt");
const OUTCOME_KEYS = keys("checkedAt", "verifier", "verdict", "receipt");

function nameVersion(value: unknown): Obj {
  const source = object(value, NAME_VERSION_KEYS);
  return { name: string(source.name, 128), version: string(source.version, 64) };
}

function labels(value: unknown): Obj {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail();
  if (Object.getPrototypeOf(value) !== Object.prototype) fail();
  const source = value as Obj;
  const labelKeys = Object.keys(source);
  if (labelKeys.length > MAX_LABELS) fail();
  const copy: Obj = {};
  for (const key of labelKeys) {
    copy[matching(key, LABEL_KEY_PATTERN, true)] = string(source[key], MAX_LABEL_VALUE_LENGTH);
  }
  return copy;
}

function session(value: unknown): Obj {
  const source = object(value, SESSION_KEYS);
  const out: Obj = { id: id(source.id), client: nameVersion(source.client) };
  optional(out, source, "server", nameVersion);
  out.transport = oneOf(source.transport, TRANSPORTS);
  optional(out, source, "auth", auth);
  out.protocol = protocol(source.protocol);
  out.capabilities = capabilities(source.capabilities);
  return out;
}

function auth(value: unknown): Obj {
  const source = object(value, AUTH_KEYS);
  const out: Obj = {};
  optional(out, source, "challenge", challenge);
  optional(out, source, "resolvedAt", timestamp);
  return out;
}

function challenge(value: unknown): Obj {
  const source = object(value, CHALLENGE_KEYS);
  const status = source.status;
  if (status !== 401 && status !== 403) fail();
  const out: Obj = { status, at: timestamp(source.at) };
  optional(out, source, "error", string64);
  optional(out, source, "requiredScope", string512);
  optional(out, source, "resourceMetadataUrl", plainHttpUrl);
  optional(out, source, "resource", plainHttpUrl);
  return out;
}

function protocol(value: unknown): Obj {
  const source = object(value, PROTOCOL_KEYS);
  const out: Obj = { era: oneOf(source.era, ERAS), requestedVersion: version(source.requestedVersion) };
  optional(out, source, "acceptedVersion", version);
  out.clientSupportedVersions = array(source.clientSupportedVersions, version, 1);
  optional(out, source, "serverSupportedVersions", versions);
  optional(out, source, "initializedAt", timestamp);
  return out;
}

function capabilities(value: unknown): Obj {
  const source = object(value, CAPABILITIES_KEYS);
  const required = object(source.required, REQUIRED_KEYS);
  return {
    server: names(source.server),
    client: names(source.client),
    required: { server: names(required.server), client: names(required.client) },
  };
}

function catalog(value: unknown): Obj {
  const source = object(value, CATALOG_KEYS);
  const out: Obj = {
    pages: integer(source.pages, 0),
    complete: boolean(source.complete),
    toolCount: integer(source.toolCount, 0),
    // "sha256:" and lower-case hex cannot spell a credential.
    schemaHash: matching(source.schemaHash, SCHEMA_HASH_PATTERN, false),
    refreshedAt: timestamp(source.refreshedAt),
  };
  optional(out, source, "ttlMs", positiveInteger);
  out.listChangedAt = array(source.listChangedAt, timestamp);
  return out;
}

function progressEntry(value: unknown): Obj {
  const source = object(value, PROGRESS_KEYS);
  const out: Obj = {
    at: timestamp(source.at),
    token: jsonRpcId(source.token),
    progress: finite(source.progress),
  };
  optional(out, source, "total", finite);
  return out;
}

function rpcError(value: unknown): Obj {
  const source = object(value, RPC_ERROR_KEYS);
  return { code: integer(source.code), class: string(source.class, 64) };
}

function response(value: unknown): Obj {
  const source = object(value, RESPONSE_KEYS);
  const out: Obj = { at: timestamp(source.at), kind: oneOf(source.kind, RESPONSE_KINDS) };
  optional(out, source, "error", rpcError);
  // Cross-field rule: error present iff kind is "error".
  if ("error" in out !== (out.kind === "error")) fail();
  optional(out, source, "isError", boolean);
  optional(out, source, "resultType", resultType);
  return out;
}

function task(value: unknown): Obj {
  const source = object(value, TASK_KEYS);
  const out: Obj = {
    id: id(source.id),
    status: oneOf(source.status, TASK_STATUSES),
    updatedAt: timestamp(source.updatedAt),
  };
  optional(out, source, "polledAt", timestamp);
  optional(out, source, "result", taskResult);
  optional(out, source, "error", rpcError);
  return out;
}

function effect(value: unknown): Obj {
  const source = object(value, EFFECT_KEYS);
  const out: Obj = {
    checkedAt: timestamp(source.checkedAt),
    status: oneOf(source.status, EFFECT_STATUSES),
  };
  optional(out, source, "receipt", string256);
  return out;
}

function outcome(value: unknown): Obj {
  const source = object(value, OUTCOME_KEYS);
  const out: Obj = {
    checkedAt: timestamp(source.checkedAt),
    verifier: verifier(source.verifier),
    verdict: oneOf(source.verdict, VERDICTS),
  };
  optional(out, source, "receipt", string256);
  return out;
}

function call(value: unknown): Obj {
  const source = object(value, CALL_KEYS);
  const out: Obj = { requestId: jsonRpcId(source.requestId), tool: string(source.tool, 128) };
  optional(out, source, "inCatalog", boolean);
  out.sideEffect = oneOf(source.sideEffect, SIDE_EFFECTS);
  optional(out, source, "operationKey", id);
  optional(out, source, "expectedVerifier", verifier);
  out.startedAt = timestamp(source.startedAt);
  const deadlineMs = integer(source.deadlineMs, 1);
  const inactivityMs = integer(source.inactivityMs, 1);
  // Cross-field rule: the idle window fits inside the deadline.
  if (inactivityMs > deadlineMs) fail();
  out.deadlineMs = deadlineMs;
  out.inactivityMs = inactivityMs;
  optional(out, source, "progressToken", jsonRpcId);
  out.progress = array(source.progress, progressEntry);
  optional(out, source, "cancelledAt", timestamp);
  optional(out, source, "response", response);
  optional(out, source, "task", task);
  // Cross-field rule: a task handle only comes with resultType "task".
  if ("task" in out && (out.response as Obj | undefined)?.resultType !== "task") fail();
  optional(out, source, "effect", effect);
  optional(out, source, "outcome", outcome);
  return out;
}

/** The validated, null-free copy of `input`, or `undefined` when zod must decide. */
export function fastParseRecord(input: unknown): HealthRecord | undefined {
  try {
    const source = object(input, RECORD_KEYS);
    if (source.schemaVersion !== 1) fail();
    const out: Obj = {
      schemaVersion: 1,
      recordId: id(source.recordId),
      chainId: id(source.chainId),
      observedAt: timestamp(source.observedAt),
    };
    optional(out, source, "labels", labels);
    out.session = session(source.session);
    optional(out, source, "catalog", catalog);
    optional(out, source, "call", call);
    return out as HealthRecord;
  } catch (error) {
    if (error === NOT_SURE) return undefined;
    throw error;
  }
}
