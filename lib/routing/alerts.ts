// From a classified chain to the alerts it should have right now. Which alerts exist is a pure
// function of the chain's latest classification; the outbox diffs it against the open alerts to
// emit firing and resolved transitions.
import { alertFingerprint } from "./fingerprint";
import {
  type Alert,
  type AlertLabels,
  type ClassifiedChain,
  isProtectedState,
  type Layer,
  QUIET_STATES,
  type Severity,
  type State,
} from "./types";

/** The one reason for which `unverified` alerts: a declared verifier that never answered. */
export const PENDING_OUTCOME_REASON = "outcome.pending";
export const URL_ELICITATION_REASON = "auth.url_elicitation_required";

/** Base severity per state; routes may override (never below critical for protected states). */
export const STATE_SEVERITY: Readonly<Record<State, Severity>> = {
  needs_auth: "high",
  incompatible_session: "high",
  stale_catalog: "warning",
  protocol_error: "warning",
  tool_failed: "warning",
  working: "low",
  effect_unknown: "critical",
  false_success: "critical",
  unverified: "warning",
  healthy: "low",
};

/** Reasons that change the base severity of their state. */
export const REASON_SEVERITY: Readonly<Record<string, Severity>> = {
  // A person must act (open a URL); it is a notice, not an outage.
  [URL_ELICITATION_REASON]: "low",
};

export function severityFor(state: State, reason: string | undefined): Severity {
  if (isProtectedState(state)) return "critical";
  return (reason !== undefined ? REASON_SEVERITY[reason] : undefined) ?? STATE_SEVERITY[state];
}

/** Contract §2: a reason's prefix names its layer. */
export function layerOfReason(reason: string, fallback: Layer): Layer {
  const prefix = reason.split(".", 1)[0];
  switch (prefix) {
    case "auth":
    case "session":
      return "session";
    case "catalog":
      return "catalog";
    case "request":
    case "task":
      return "request";
    case "effect":
      return "effect";
    case "outcome":
    case "chain":
      return "outcome";
    default:
      return fallback;
  }
}

/** Labels of the chain's headline alert: what routes, silences and inhibition rules match on. */
export function alertLabelsFor(chain: ClassifiedChain): AlertLabels {
  const labels: Record<string, string> = {};
  // Record labels are namespaced under "label." so a record can never set a built-in like state.
  for (const [key, value] of Object.entries(chain.labels)) labels[`label.${key}`] = value;
  const reason = chain.reasons[0];
  labels.state = chain.state;
  labels.layer = chain.layer;
  labels.severity = severityFor(chain.state, reason);
  labels.chain = chain.chainId;
  if (reason !== undefined) labels.reason = reason;
  if (chain.server !== undefined) labels.server = chain.server;
  if (chain.client !== undefined) labels.client = chain.client;
  if (chain.tool !== undefined) labels.tool = chain.tool;
  if (chain.transport !== undefined) labels.transport = chain.transport;
  return labels;
}

/** Does the chain's headline state raise an alert? working/healthy never; unverified only when pending. */
export function headlineAlerts(chain: ClassifiedChain): boolean {
  if (QUIET_STATES.includes(chain.state)) return false;
  if (chain.state === "unverified") return chain.reasons[0] === PENDING_OUTCOME_REASON;
  return true;
}

/**
 * The alerts a chain should have: one for its state (unless quiet), plus one for a `shadowed`
 * effect_unknown/false_success, which routes like the state itself — a timed-out write behind an
 * auth challenge is still an effect in doubt. A shadowed protocol_error/tool_failed only informs.
 */
export function alertsForChain(chain: ClassifiedChain): Alert[] {
  const alerts: Alert[] = [];
  if (headlineAlerts(chain)) {
    const labels = alertLabelsFor(chain);
    alerts.push({
      fingerprint: alertFingerprint(chain.chainId, chain.state),
      chainId: chain.chainId,
      sessionId: chain.sessionId,
      state: chain.state,
      layer: chain.layer,
      reasons: [...chain.reasons],
      severity: labels.severity as Severity,
      retrySafe: chain.retrySafe,
      labels,
    });
  }
  const shadowed = chain.shadowed;
  if (shadowed && isProtectedState(shadowed.state) && shadowed.state !== chain.state) {
    const layer = layerOfReason(shadowed.reason, chain.layer);
    const labels = {
      ...alertLabelsFor({ ...chain, state: shadowed.state, layer, reasons: [shadowed.reason] }),
      shadowed_by: chain.state,
    };
    alerts.push({
      fingerprint: alertFingerprint(chain.chainId, shadowed.state),
      chainId: chain.chainId,
      sessionId: chain.sessionId,
      state: shadowed.state,
      layer,
      reasons: [shadowed.reason],
      severity: "critical",
      retrySafe: chain.retrySafe,
      shadowedBy: chain.state,
      labels,
    });
  }
  return alerts;
}
