import type { Layer } from "../contract/states";

/**
 * Reason codes of contract §3. Stable API: dashboards, routing rules and stored
 * classifications depend on these exact strings. The prefix names the layer (§2).
 */
export const REASONS = {
  // Session (rules 1–7)
  AUTH_CHALLENGE_UNRESOLVED: "auth.challenge_unresolved",
  AUTH_URL_ELICITATION_REQUIRED: "auth.url_elicitation_required",
  SESSION_NO_ANSWER: "session.no_answer",
  SESSION_NO_AGREED_VERSION: "session.no_agreed_version",
  SESSION_VERSION_UNSUPPORTED: "session.version_unsupported",
  SESSION_NOT_INITIALIZED: "session.not_initialized",
  SESSION_CAPABILITY_MISSING: "session.capability_missing",
  /** v1.2: the reporter did not see the handshake, so rules 3–6 were not evaluated (a coverage gap). */
  SESSION_NOT_OBSERVED: "session.not_observed",
  // Catalog (rules 8–11)
  CATALOG_NOT_READ: "catalog.not_read",
  CATALOG_INCOMPLETE: "catalog.incomplete",
  CATALOG_CHANGED_SINCE_REFRESH: "catalog.changed_since_refresh",
  CATALOG_EXPIRED: "catalog.expired",
  /** v1.2: the reporter did not see tools/list, so rules 8–11 were not evaluated (a coverage gap). */
  CATALOG_NOT_OBSERVED: "catalog.not_observed",
  // No call in the chain
  CHAIN_NO_CALL: "chain.no_call",
  // Request (rules 12–18)
  REQUEST_UNKNOWN_TOOL: "request.unknown_tool",
  REQUEST_CALLER_ERROR: "request.caller_error",
  REQUEST_SERVER_ERROR: "request.server_error",
  TASK_CALLER_ERROR: "task.caller_error",
  TASK_FAILED: "task.failed",
  REQUEST_CANCELLED: "request.cancelled",
  TASK_CANCELLED: "task.cancelled",
  TASK_WORKING: "task.working",
  REQUEST_INPUT_REQUIRED: "request.input_required",
  REQUEST_IN_FLIGHT: "request.in_flight",
  REQUEST_DEADLINE_EXCEEDED: "request.deadline_exceeded",
  REQUEST_INACTIVE: "request.inactive",
  REQUEST_PROGRESS_INCONSISTENT: "request.progress_inconsistent",
  REQUEST_UNFINISHED_READ_ONLY: "request.unfinished_read_only",
  REQUEST_TOOL_ERROR: "request.tool_error",
  // Effect (rules 16, 17, 19)
  EFFECT_CHECKED_BEFORE_CALL: "effect.checked_before_call",
  EFFECT_ABSENT: "effect.absent",
  EFFECT_UNRECONCILED: "effect.unreconciled",
  // Outcome (rules 16, 20–22)
  OUTCOME_CHECKED_BEFORE_CALL: "outcome.checked_before_call",
  OUTCOME_PENDING: "outcome.pending",
  OUTCOME_NO_RECEIPT: "outcome.no_receipt",
  OUTCOME_UNAVAILABLE: "outcome.unavailable",
  OUTCOME_VERIFIER_FAILED: "outcome.verifier_failed",
  OUTCOME_VERIFIED: "outcome.verified",
  OUTCOME_WEAK_EVIDENCE: "outcome.weak_evidence",
} as const;

export type ReasonCode = (typeof REASONS)[keyof typeof REASONS];

export const REASON_CODES: readonly ReasonCode[] = Object.values(REASONS);

/** v1.2: the path codes that mark a layer the reporter could not see. Never a finding, never green. */
export const NOT_OBSERVED_REASON_CODES: readonly ReasonCode[] = [
  REASONS.SESSION_NOT_OBSERVED,
  REASONS.CATALOG_NOT_OBSERVED,
];

const LAYER_BY_PREFIX: Record<string, Layer> = {
  auth: "session",
  session: "session",
  catalog: "catalog",
  request: "request",
  task: "request",
  effect: "effect",
  outcome: "outcome",
  chain: "outcome",
};

const LAYER_BY_REASON = new Map<ReasonCode, Layer>(
  REASON_CODES.map((reason) => [reason, LAYER_BY_PREFIX[reason.slice(0, reason.indexOf("."))] as Layer]),
);

/** The layer a reason belongs to, from its prefix (§2). */
export function layerOfReason(reason: ReasonCode): Layer {
  const layer = LAYER_BY_REASON.get(reason);
  if (layer === undefined) throw new Error(`unknown reason code: ${reason}`);
  return layer;
}
