import { randomUUID } from "node:crypto";
import { isAddressableId } from "../../../lib/contract/limits";
import type { CallEvidence, CatalogEvidence, CollectorRecord, SessionEvidence } from "./record-types";
import { iso } from "./time";

const LABEL_KEY = /^[a-z][a-z0-9_.-]{0,62}$/;
const ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A fresh opaque id (`prefix-uuid`); never derived from anything a server or user sent. */
export function newId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

export function assertId(value: string, what: string): string {
  if (!ID.test(value) || !isAddressableId(value))
    throw new TypeError(`${what} must be 1–128 chars of [A-Za-z0-9._:-], and not "." or ".."`);
  return value;
}

/**
 * recordId = chainId + phase. Each phase of a chain is emitted once, so a record posted twice
 * (a delivery retry, a replayed buffer) is the same record and ingestion stores it once.
 */
export function recordId(chainId: string, phase: string): string {
  return assertId(`${chainId}:${phase}`, "recordId");
}

/** Labels are checked when given, not when a record is rejected at ingestion much later. */
export function checkLabels(labels: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!labels) return undefined;
  const entries = Object.entries(labels);
  if (entries.length > 16) throw new TypeError("at most 16 labels");
  for (const [key, value] of entries) {
    if (!LABEL_KEY.test(key)) throw new TypeError(`label key ${JSON.stringify(key)} must match ${LABEL_KEY}`);
    if (typeof value !== "string" || value.length > 256)
      throw new TypeError(`label ${key} must be a string ≤ 256`);
  }
  return { ...labels };
}

export function buildRecord(parts: {
  chainId: string;
  phase: string;
  session: SessionEvidence;
  catalog?: CatalogEvidence;
  call?: CallEvidence;
  observed?: CollectorRecord["observed"];
  labels?: Record<string, string>;
  observedAt?: number;
  /** The parts are fresh copies already (the call path's snapshots): skip the deep clone. */
  detached?: boolean;
}): CollectorRecord {
  const record: CollectorRecord = {
    schemaVersion: 1,
    recordId: recordId(parts.chainId, parts.phase),
    chainId: parts.chainId,
    observedAt: iso(parts.observedAt ?? Date.now()),
    session: parts.session,
  };
  if (parts.labels && Object.keys(parts.labels).length > 0) record.labels = { ...parts.labels };
  if (parts.catalog) record.catalog = parts.catalog;
  if (parts.call) record.call = parts.call;
  if (parts.observed) record.observed = { ...parts.observed };
  // Records are snapshots: detach them from the live state that keeps changing.
  return parts.detached ? record : structuredClone(record);
}
