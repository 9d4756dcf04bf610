/**
 * A hand-written fast path for `validateRecord` on well-formed input.
 *
 * Zod is slow per record and copies it, which alone would miss the ingestion budget
 * (issue 3: ≥ 50,000 validated and classified records/s on one core). This checks the same
 * rules as `ZHealthRecord` directly, without allocating. It only ever says "valid" or "not
 * sure": on "not sure" the zod schema decides and reports the issues, so zod stays the single
 * authority on errors. Unusual spellings (a URL with an upper-case scheme, a non-plain
 * object) are left to zod. A property test asserts that whatever this accepts, zod accepts
 * with the same output.
 *
 * It also applies the redaction guard (§5) in the same pass: every free-text string and
 * label key is checked for credentials; a hit means "not sure", and the slow path names it.
 * Only timestamps, versions and enum values skip the check: their character sets cannot
 * spell any credential pattern, plain or hex- or base64-encoded.
 */
import {
  array,
  boolean,
  type Check,
  fail,
  finite,
  id,
  integer,
  jsonRpcId,
  keys,
  matching,
  NOT_SURE,
  nulls,
  type Obj,
  object,
  oneOf,
  optional,
  plainHttpUrl,
  string,
  timestamp,
  version,
} from "./fast-parse-checks";
import type { HealthRecord } from "./record";
import { fitsBeforeLastTimestamp, MAX_DURATION_MS } from "./limits";
import { LABEL_KEY_PATTERN, MAX_LABEL_VALUE_LENGTH, MAX_LABELS, SCHEMA_HASH_PATTERN } from "./record-fields";
import { matchCredentialField } from "./redaction";
import { parseStorableTimestamp } from "./timestamp";

/**
 * The validated record, or `undefined` when zod must decide. Without nulls the input is
 * returned as is (it is exactly the record zod would build); with nulls, a copy without them.
 */
export function fastParseRecord(input: unknown): HealthRecord | undefined {
  nulls.seen = false;
  try {
    checkRecord(input);
  } catch (error) {
    if (error === NOT_SURE) return undefined;
    throw error;
  }
  return (nulls.seen ? copyWithoutNulls(input) : input) as HealthRecord;
}

function copyWithoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyWithoutNulls);
  if (typeof value !== "object" || value === null) return value;
  const copy: Obj = {};
  for (const [key, item] of Object.entries(value)) if (item !== null) copy[key] = copyWithoutNulls(item);
  return copy;
}

// ── the record, level by level (mirrors record.ts) ─────────────────────────────────────────

const TRANSPORTS = ["stdio", "streamable-http", "sse", "other"];
const ERAS = ["legacy", "modern"];
const RESPONSE_KINDS = ["result", "error"];
const RESULT_TYPES = ["complete", "input_required", "task"];
const TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"];
const EFFECT_STATUSES = ["committed", "absent", "unknown"];
const VERDICTS = ["pass", "fail", "unavailable"];
const SIDE_EFFECTS = ["none", "write", "unknown"];
const VERIFIERS = ["file_hash", "db_row", "http_status", "test", "llm_judge", "other"];

const RECORD_KEYS = keys(
  "schemaVersion",
  "recordId",
  "chainId",
  "observedAt",
  "labels",
  "session",
  "catalog",
  "call",
  "observed",
);
const OBSERVED_KEYS = keys("handshake", "catalog");
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

// Named single-argument checks for `optional` and `array` (no closures allocated per record).
const string64: Check = (value) => string(value, 64);
const string256: Check = (value) => string(value, 256);
const string512: Check = (value) => string(value, 512);
const anyString: Check = (value) => string(value);
const versions: Check = (value) => array(value, version);
const positiveInteger: Check = (value) => integer(value, 1);
const verifier: Check = (value) => oneOf(value, VERIFIERS);
const resultType: Check = (value) => oneOf(value, RESULT_TYPES);

function checkRecord(value: unknown): void {
  const record = object(value, RECORD_KEYS);
  if (record.schemaVersion !== 1) fail();
  id(record.recordId);
  id(record.chainId);
  timestamp(record.observedAt);
  optional(record, "labels", labels);
  session(record.session);
  optional(record, "catalog", catalog);
  optional(record, "call", call);
  optional(record, "observed", observed);
  // Cross-field rules (v1.2): a layer the reporter did not see carries none of its evidence.
  const observedSource = record.observed as Obj | null | undefined;
  if (observedSource != null) {
    if (observedSource.catalog === false && record.catalog != null) fail();
    const protocolSource = (record.session as Obj).protocol as Obj;
    if (observedSource.handshake === false && protocolSource.initializedAt != null) fail();
  }
}

const observed: Check = (value) => {
  const source = object(value, OBSERVED_KEYS);
  optional(source, "handshake", boolean);
  optional(source, "catalog", boolean);
};

const nameVersion: Check = (value) => {
  const source = object(value, NAME_VERSION_KEYS);
  string(source.name, 128);
  string(source.version, 64);
};

const labels: Check = (value) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail();
  if (Object.getPrototypeOf(value) !== Object.prototype) fail();
  const source = value as Obj;
  let count = 0;
  for (const key in source) {
    if (++count > MAX_LABELS) fail();
    matching(key, LABEL_KEY_PATTERN, true);
    string(source[key], MAX_LABEL_VALUE_LENGTH);
    if (matchCredentialField(key, source[key] as string) !== undefined) fail();
  }
};

function session(value: unknown): void {
  const source = object(value, SESSION_KEYS);
  id(source.id);
  nameVersion(source.client);
  optional(source, "server", nameVersion);
  oneOf(source.transport, TRANSPORTS);
  optional(source, "auth", auth);
  protocol(source.protocol);
  capabilities(source.capabilities);
}

const auth: Check = (value) => {
  const source = object(value, AUTH_KEYS);
  optional(source, "challenge", challenge);
  optional(source, "resolvedAt", timestamp);
};

const challenge: Check = (value) => {
  const source = object(value, CHALLENGE_KEYS);
  if (source.status !== 401 && source.status !== 403) fail();
  timestamp(source.at);
  optional(source, "error", string64);
  optional(source, "requiredScope", string512);
  optional(source, "resourceMetadataUrl", plainHttpUrl);
  optional(source, "resource", plainHttpUrl);
};

function protocol(value: unknown): void {
  const source = object(value, PROTOCOL_KEYS);
  oneOf(source.era, ERAS);
  version(source.requestedVersion);
  optional(source, "acceptedVersion", version);
  array(source.clientSupportedVersions, version, 1);
  optional(source, "serverSupportedVersions", versions);
  optional(source, "initializedAt", timestamp);
}

function capabilities(value: unknown): void {
  const source = object(value, CAPABILITIES_KEYS);
  const required = object(source.required, REQUIRED_KEYS);
  array(source.server, anyString);
  array(source.client, anyString);
  array(required.server, anyString);
  array(required.client, anyString);
}

const catalog: Check = (value) => {
  const source = object(value, CATALOG_KEYS);
  integer(source.pages, 0);
  boolean(source.complete);
  integer(source.toolCount, 0);
  // Lower-case hex can encode one (the guard decodes hex runs to text): a real digest is refused before decoding.
  matching(source.schemaHash, SCHEMA_HASH_PATTERN, true);
  timestamp(source.refreshedAt);
  optional(source, "ttlMs", positiveInteger);
  array(source.listChangedAt, timestamp);
};

const progressEntry: Check = (value) => {
  const source = object(value, PROGRESS_KEYS);
  timestamp(source.at);
  jsonRpcId(source.token);
  finite(source.progress);
  optional(source, "total", finite);
};

const rpcError: Check = (value) => {
  const source = object(value, RPC_ERROR_KEYS);
  integer(source.code);
  string(source.class, 64);
};

function response(value: unknown): Obj {
  const source = object(value, RESPONSE_KEYS);
  timestamp(source.at);
  oneOf(source.kind, RESPONSE_KINDS);
  optional(source, "error", rpcError);
  // Cross-field rule: error present iff kind is "error".
  const hasError = source.error !== undefined && source.error !== null;
  if (hasError !== (source.kind === "error")) fail();
  optional(source, "isError", boolean);
  optional(source, "resultType", resultType);
  return source;
}

const task: Check = (value) => {
  const source = object(value, TASK_KEYS);
  id(source.id);
  oneOf(source.status, TASK_STATUSES);
  timestamp(source.updatedAt);
  optional(source, "polledAt", timestamp);
  optional(source, "result", (result) => boolean(object(result, TASK_RESULT_KEYS).isError));
  optional(source, "error", rpcError);
};

const effect: Check = (value) => {
  const source = object(value, EFFECT_KEYS);
  timestamp(source.checkedAt);
  oneOf(source.status, EFFECT_STATUSES);
  optional(source, "receipt", string256);
};

const outcome: Check = (value) => {
  const source = object(value, OUTCOME_KEYS);
  timestamp(source.checkedAt);
  verifier(source.verifier);
  oneOf(source.verdict, VERDICTS);
  optional(source, "receipt", string256);
};

const call: Check = (value) => {
  const source = object(value, CALL_KEYS);
  jsonRpcId(source.requestId);
  string(source.tool, 128);
  optional(source, "inCatalog", boolean);
  oneOf(source.sideEffect, SIDE_EFFECTS);
  optional(source, "operationKey", id);
  optional(source, "expectedVerifier", verifier);
  timestamp(source.startedAt);
  // Cross-field rules: the idle window fits inside the deadline, which falls before the last storable instant.
  const deadlineMs = integer(source.deadlineMs, 1);
  if (deadlineMs > MAX_DURATION_MS || integer(source.inactivityMs, 1) > deadlineMs) fail();
  if (!fitsBeforeLastTimestamp(parseStorableTimestamp(source.startedAt as string) as number, deadlineMs))
    fail();
  optional(source, "progressToken", jsonRpcId);
  array(source.progress, progressEntry);
  optional(source, "cancelledAt", timestamp);
  const responseValue = source.response;
  const responseSource =
    responseValue === undefined || responseValue === null ? undefined : response(responseValue);
  if (responseValue === null) nulls.seen = true;
  optional(source, "task", task);
  // Cross-field rule: a task handle only comes with resultType "task".
  const hasTask = source.task !== undefined && source.task !== null;
  if (hasTask && responseSource?.resultType !== "task") fail();
  optional(source, "effect", effect);
  optional(source, "outcome", outcome);
};
