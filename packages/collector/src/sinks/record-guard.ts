import { forEachString, type PathSegment } from "../../../../lib/contract/json-strings";
import { jsonPath, matchCredentialField, matchSecretPattern } from "../../../../lib/contract/redaction";
import { validateRecord } from "../../../../lib/contract/validate";
import type { CollectorRecord } from "../record-types";
import { peerNeedsRepair, repairPeers, repairString } from "./text-repair";
import type { RecordIssue } from "./types";

/** What a masked value becomes: valid wherever a string or an Id is, and plainly not evidence. */
export const MASKED_VALUE = "redacted";

export type GuardedRecord =
  | { ok: true; record: CollectorRecord; json: string; masked: RecordIssue[] }
  | { ok: false; issues: RecordIssue[] };

/**
 * The server's own checks (contract validation and the secret guard), run before a record is sent, so one bad
 * field never costs a batch, nor the record. A value that looks like a credential is masked; an object key that
 * does is removed with its value; a NUL or an unpaired surrogate in a string becomes U+FFFD, and so does a control
 * character in a peer's name or version; a free-text value past the contract's length is cut to it; a field the
 * schema still refuses is removed. The record goes if what is left is valid, else it is dropped. Either way the
 * paths and codes are reported, never the values. Almost every record passes the first check and is serialised
 * once, here, off the call path.
 */
export function guardRecord(record: CollectorRecord): GuardedRecord {
  const first = validateRecord(record);
  if (first.ok && !peerNeedsRepair(record))
    return { ok: true, record, json: JSON.stringify(record), masked: [] };
  const repaired = structuredClone(record) as unknown as Record<string, unknown>;
  const masked = [...maskSecrets(repaired), ...repairPeers(repaired)];
  let result = validateRecord(repaired);
  if (!result.ok) {
    for (const issue of result.issues) {
      const segments = parsePath(issue.path);
      const fixed = segments === undefined ? undefined : repairString(repaired, segments, issue.code);
      if (fixed !== undefined) masked.push(fixed);
    }
    result = validateRecord(repaired);
  }
  if (!result.ok) {
    const removable = result.issues
      .map((issue) => ({ ...issue, segments: parsePath(issue.path) ?? [] }))
      .filter((issue) => issue.segments.length > 0)
      .sort((a, b) => laterFirst(a.segments, b.segments));
    for (const issue of removable)
      if (removeAt(repaired, issue.segments)) masked.push({ path: issue.path, code: issue.code });
    result = validateRecord(repaired);
  }
  if (!result.ok) {
    const issues = (first.ok ? result : first).issues.map(({ path, code }) => ({ path, code }));
    return { ok: false, issues };
  }
  const guarded = repaired as unknown as CollectorRecord;
  return { ok: true, record: guarded, json: JSON.stringify(guarded), masked };
}

function maskSecrets(root: Record<string, unknown>): RecordIssue[] {
  const values: PathSegment[][] = [];
  const keys: PathSegment[][] = [];
  forEachString(root, (text, path, where) => {
    const key = path[path.length - 1];
    const namedCredential = where === "value" && typeof key === "string" && matchCredentialField(key, text);
    if (matchSecretPattern(text) === undefined && !namedCredential) return;
    (where === "key" ? keys : values).push([...path]);
  });
  const masked: RecordIssue[] = [];
  for (const path of values) {
    setAt(root, path, MASKED_VALUE);
    masked.push({ path: jsonPath(path), code: "secret_masked" });
  }
  for (const path of keys.reverse()) {
    masked.push({ path: jsonPath(path), code: "secret_key_removed" });
    removeAt(root, path);
  }
  return masked;
}

/** Higher array indexes and deeper paths first, so removing one entry never shifts another still to go. */
function laterFirst(a: readonly PathSegment[], b: readonly PathSegment[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as PathSegment;
    const y = b[i] as PathSegment;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return y - x;
    return String(x) < String(y) ? -1 : 1;
  }
  return b.length - a.length;
}

function parent(root: unknown, path: readonly PathSegment[]): unknown {
  let node = root;
  for (const segment of path.slice(0, -1)) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  return typeof node === "object" && node !== null ? node : undefined;
}

function setAt(root: unknown, path: readonly PathSegment[], value: unknown): void {
  const holder = parent(root, path) as Record<PathSegment, unknown> | undefined;
  const last = path[path.length - 1];
  if (holder && last !== undefined && last in holder) holder[last] = value;
}

function removeAt(root: unknown, path: readonly PathSegment[]): boolean {
  const holder = parent(root, path);
  const last = path[path.length - 1];
  if (holder === undefined || last === undefined) return false;
  if (Array.isArray(holder) && typeof last === "number" && last < holder.length) {
    holder.splice(last, 1);
    return true;
  }
  if (Array.isArray(holder) || !Object.hasOwn(holder as object, String(last))) return false;
  delete (holder as Record<string, unknown>)[String(last)];
  return true;
}

const SEGMENT = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/** Reads back a path written by the contract's `jsonPath` (`$.a.b[2]["c d"]`); undefined if it is not one. */
export function parsePath(path: string): PathSegment[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const segments: PathSegment[] = [];
  SEGMENT.lastIndex = 1;
  while (SEGMENT.lastIndex < path.length) {
    const start = SEGMENT.lastIndex;
    const match = SEGMENT.exec(path);
    if (!match || match.index !== start) return undefined;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3] as string) as string);
  }
  return segments;
}
