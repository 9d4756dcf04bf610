import type { Call, HealthRecord } from "../contract/record";
import type { Layer, State } from "../contract/states";
import { parseTimestamp } from "../contract/timestamp";
import { catalogDecision } from "./catalog-rules";
import { type Decision, decide, toMs } from "./decision";
import { REJECTED_WITHOUT_RUNNING_CODES } from "./json-rpc-codes";
import { layerOfReason, REASONS, type ReasonCode } from "./reasons";
import { evaluateCall } from "./request-rules";
import { sessionDecision } from "./session-rules";

/** The classification result of contract §4. */
export type Classification = {
  state: State;
  layer: Layer;
  /** `reasons[0]` decided the state; the rest are the codes of the path that led there. */
  reasons: ReasonCode[];
  /** Present whenever the record has a call: may the call be repeated automatically? */
  retrySafe?: boolean;
  /** Present only on `healthy`. */
  evidence?: "strong" | "weak";
  /** Present only on `working`: when to classify again if no newer record arrives (UTC, ms). */
  nextCheckAt?: string;
  /**
   * A request/effect/outcome problem hidden behind a session or catalog state; never set when the call's own error
   * decided that state (rules 2 and 7).
   */
  shadowed?: { state: State; reason: ReasonCode };
};

/** States worth surfacing from behind a session or catalog decision (§4). */
const SHADOWABLE: ReadonlySet<State> = new Set([
  "protocol_error",
  "tool_failed",
  "effect_unknown",
  "false_success",
]);

/**
 * Classifies a validated record into exactly one state (contract §3). Pure: the clock is
 * the `at` argument (default `record.observedAt`), never the system time.
 *
 * @throws RangeError when `at` is not an RFC 3339 timestamp or is earlier than `observedAt`
 *   (a snapshot cannot be judged at a time before it was taken).
 */
export function classify(record: HealthRecord, at?: string): Classification {
  const observedMs = toMs(record.observedAt);
  const atMs = at === undefined ? observedMs : parseTimestamp(at);
  if (atMs === undefined) throw new RangeError("at must be an RFC 3339 timestamp with a zone");
  if (atMs < observedMs) throw new RangeError("at must not be earlier than the record's observedAt");

  const { call } = record;
  // v1.2: `session.not_observed` / `catalog.not_observed`, when a layer was not seen (in that order).
  const unseen: ReasonCode[] = [];
  const upstream = sessionDecision(record, unseen) ?? catalogDecision(record, atMs, unseen);
  if (upstream !== undefined) {
    const result = toClassification(withUpstreamPath(upstream, unseen), call);
    // v1.1: a state decided by the call's own error has nothing hidden behind it but that same error.
    if (call !== undefined && !upstream.decidedByCallError) {
      const behind = evaluateCall(call, atMs);
      const [reason] = behind.reasons;
      if (SHADOWABLE.has(behind.state) && reason !== undefined)
        result.shadowed = { state: behind.state, reason };
    }
    return result;
  }
  // Nothing was invoked, so nothing can be receipted: quiet, but not green.
  if (call === undefined) return toClassification(decide("unverified", REASONS.CHAIN_NO_CALL, unseen), call);
  return toClassification(notGreenWhenUnseen(evaluateCall(call, atMs), unseen), call);
}

/** The session/catalog path codes arose before any request-layer code: they follow the deciding reason first. */
function withUpstreamPath(decision: Decision, unseen: readonly ReasonCode[]): Decision {
  if (unseen.length === 0) return decision;
  const [deciding, ...path] = decision.reasons;
  if (deciding === undefined) throw new Error("a decision always has a deciding reason");
  return { ...decision, reasons: [deciding, ...unseen, ...path] };
}

/**
 * Rule 22, v1.2: every layer's evidence must agree before a chain is green, and a layer the
 * reporter did not see cannot agree. A would-be `healthy` is `unverified`, decided by the first
 * not-observed code (so its layer is session or catalog), the other path codes after it, and
 * no `evidence`. Any other state keeps its deciding reason, with the unseen layers on its path.
 */
function notGreenWhenUnseen(decision: Decision, unseen: readonly ReasonCode[]): Decision {
  const [firstUnseen, ...otherUnseen] = unseen;
  if (firstUnseen === undefined) return decision;
  if (decision.state !== "healthy") return withUpstreamPath(decision, unseen);
  // reasons = [outcome.verified, …request path codes]: the deciding reason gives way to the unseen layer.
  return decide("unverified", firstUnseen, [...otherUnseen, ...decision.reasons.slice(1)]);
}

function toClassification(decision: Decision, call: Call | undefined): Classification {
  const [deciding] = decision.reasons;
  if (deciding === undefined) throw new Error("a decision always has a deciding reason");
  const result: Classification = {
    state: decision.state,
    layer: layerOfReason(deciding),
    reasons: decision.reasons,
  };
  if (call !== undefined) result.retrySafe = isRetrySafe(call);
  if (decision.evidence !== undefined) result.evidence = decision.evidence;
  if (decision.nextCheckAtMs !== undefined)
    result.nextCheckAt = new Date(decision.nextCheckAtMs).toISOString();
  return result;
}

/**
 * §4: repeating the call cannot duplicate or contradict a write — it is read-only, the
 * destination shows the write absent, or the server refused the call without running it.
 * Only a direct error response counts as a refusal: a task that failed (even with one of
 * those codes) had been accepted and may have written before failing.
 */
function isRetrySafe(call: Call): boolean {
  if (call.sideEffect === "none" || call.inCatalog === false) return true;
  const response = call.response;
  if (response?.kind === "error" && response.error !== undefined) {
    if (REJECTED_WITHOUT_RUNNING_CODES.has(response.error.code)) return true;
  }
  // Rule 16: an "absent" checked before the call started says nothing about this call.
  const effect = call.effect;
  return effect?.status === "absent" && toMs(effect.checkedAt) >= toMs(call.startedAt);
}
