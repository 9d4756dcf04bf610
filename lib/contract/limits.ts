/** Bounds a record respects beyond its shape, so that it can be stored, re-classified later and opened by URL. */
import { MAX_TIMESTAMP_MS } from "./timestamp";

/**
 * Upper bound of `deadlineMs` and `inactivityMs`: one year. Generous for any call or task a person waits on, and it
 * keeps `startedAt + deadlineMs` (the deadline worker's due time) far inside what Date and PostgreSQL can hold.
 */
export const MAX_DURATION_MS = 365 * 86_400_000;

/** "." and ".." are path segments a URL resolves away: a chain or session with such an id could never be opened. */
export function isAddressableId(id: string): boolean {
  return id !== "." && id !== "..";
}

/**
 * The deadline worker re-classifies a chain 1 ms after `startedAt + deadlineMs` and stores that instant, so both must
 * be timestamps PostgreSQL holds.
 */
export function fitsBeforeLastTimestamp(startedMs: number, deadlineMs: number): boolean {
  return startedMs + deadlineMs < MAX_TIMESTAMP_MS;
}
