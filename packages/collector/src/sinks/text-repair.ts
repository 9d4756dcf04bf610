import type { PathSegment } from "../../../../lib/contract/json-strings";
import { jsonPath } from "../../../../lib/contract/redaction";
import { isStorableString, UNSTORABLE_STRING } from "../../../../lib/contract/storable";
import type { RecordIssue } from "./types";

/** What stands in for a character a record cannot or should not carry: visible, and plainly not the original. */
export const REPLACEMENT_CHARACTER = "\uFFFD";

/**
 * The codes a repaired field is reported with (stable API, in `DeliveryReport.masked`): a NUL or an unpaired
 * surrogate (which PostgreSQL cannot store) replaced, a control character in a peer's name or version replaced,
 * a value cut to the contract's length.
 */
export const REPAIR_CODES = {
  unstorableReplaced: "unstorable_replaced",
  controlReplaced: "control_replaced",
  truncated: "truncated",
} as const;

/** Unpaired UTF-16 surrogates: with NUL, what the contract refuses in any string (`isStorableString`). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** C0 and C1 control characters, DEL included: a peer's name is shown and grouped on, never a terminal escape. */
const CONTROL = /\p{Cc}/gu;

/** The peers' self-reported names and versions, with the contract's lengths. */
const PEER_FIELDS: readonly { path: readonly PathSegment[]; max: number }[] = [
  { path: ["session", "client", "name"], max: 128 },
  { path: ["session", "client", "version"], max: 64 },
  { path: ["session", "server", "name"], max: 128 },
  { path: ["session", "server", "version"], max: 64 },
];

/** Free-text fields whose length limit the contract sets (§1), by path; labels are `labels.<key>`. */
function maxLengthAt(path: readonly PathSegment[]): number | undefined {
  const peer = PEER_FIELDS.find((field) => samePath(field.path, path));
  if (peer !== undefined) return peer.max;
  if (path.length === 2 && path[0] === "labels") return 256;
  if (samePath(path, ["call", "tool"])) return 128;
  if (samePath(path, ["call", "effect", "receipt"]) || samePath(path, ["call", "outcome", "receipt"]))
    return 256;
  return undefined;
}

/**
 * Whether a peer's name or version holds a character the collector replaces although the contract would take it
 * (control characters other than NUL). Four short strings per record: the clean path stays cheap.
 */
export function peerNeedsRepair(record: unknown): boolean {
  for (const { path } of PEER_FIELDS) {
    const value = valueAt(record, path);
    if (typeof value === "string" && hasMatch(CONTROL, value)) return true;
  }
  return false;
}

/** Replaces control characters (NUL included) in the peers' names and versions; says which fields changed. */
export function repairPeers(root: unknown): RecordIssue[] {
  const repaired: RecordIssue[] = [];
  for (const { path } of PEER_FIELDS) {
    const value = valueAt(root, path);
    if (typeof value !== "string" || !hasMatch(CONTROL, value)) continue;
    setAt(root, path, replaceUnstorable(value).replace(CONTROL, REPLACEMENT_CHARACTER));
    repaired.push({ path: jsonPath(path), code: REPAIR_CODES.controlReplaced });
  }
  return repaired;
}

/**
 * Repairs what validation refused in a string value that can be repaired without losing its meaning: NUL and
 * unpaired surrogates become U+FFFD, an over-long free-text value is cut to its limit (never inside a surrogate
 * pair). A key, or a value of another kind, is left for removal.
 */
export function repairString(
  root: unknown,
  path: readonly PathSegment[],
  code: string,
): RecordIssue | undefined {
  const value = valueAt(root, path);
  if (typeof value !== "string") return undefined;
  if (code === UNSTORABLE_STRING && !isStorableString(value)) {
    setAt(root, path, replaceUnstorable(value));
    return { path: jsonPath(path), code: REPAIR_CODES.unstorableReplaced };
  }
  const max = maxLengthAt(path);
  if (code === "too_big" && max !== undefined && value.length > max) {
    setAt(root, path, clipText(value, max));
    return { path: jsonPath(path), code: REPAIR_CODES.truncated };
  }
  return undefined;
}

/** `text` cut to at most `max` UTF-16 code units, never leaving half of a surrogate pair at the end. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

function replaceUnstorable(text: string): string {
  return text.replaceAll("\u0000", REPLACEMENT_CHARACTER).replace(UNPAIRED_SURROGATE, REPLACEMENT_CHARACTER);
}

function hasMatch(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

function samePath(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  return a.length === b.length && a.every((segment, i) => segment === b[i]);
}

function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let node = root;
  for (const segment of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  return node;
}

function setAt(root: unknown, path: readonly PathSegment[], value: unknown): void {
  let node = root;
  for (const segment of path.slice(0, -1)) {
    if (typeof node !== "object" || node === null) return;
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  const last = path[path.length - 1];
  if (typeof node === "object" && node !== null && last !== undefined && Object.hasOwn(node, last))
    (node as Record<PathSegment, unknown>)[last] = value;
}
