import { parseTimestamp } from "../contract/timestamp";
import type { State } from "../contract/states";
import type { ReasonCode } from "./reasons";

/**
 * What one rule group concludes. `reasons[0]` is the deciding reason; the rest are the codes
 * of the path that led there, in the order they arose (§3).
 */
export type Decision = {
  state: State;
  reasons: ReasonCode[];
  nextCheckAtMs?: number;
  evidence?: "strong" | "weak";
  /**
   * Set when the call's own JSON-RPC error decided a session state (rules 2 and 7): the request layer behind it
   * would only restate that error, so it is not reported as `shadowed` (§4, v1.1).
   */
  decidedByCallError?: true;
};

export function decide(state: State, reason: ReasonCode, pathCodes: readonly ReasonCode[] = []): Decision {
  return { state, reasons: [reason, ...pathCodes] };
}

/**
 * Epoch milliseconds of a timestamp from a validated record. A string the schema would
 * have rejected is a programming error (classify was handed an unvalidated record).
 */
export function toMs(timestamp: string): number {
  const ms = parseTimestamp(timestamp);
  if (ms === undefined) throw new RangeError("classify expects a validated record: bad timestamp");
  return ms;
}
