import { type State, STATE_SEVERITY_ORDER, STATES } from "../contract/states";

/**
 * How each of the ten states is shown. The colour is never the only signal: every badge also carries the icon
 * and the label, so the states stay distinguishable in greyscale and for colour-blind operators.
 */
export type StateMeta = {
  label: string;
  /** One line for tooltips and legends: what the state means to the person on call. */
  summary: string;
  /** Who owns the fix by default (contract §2). */
  owner: string;
  /** CSS colour, chosen for ≥ 4.5:1 contrast on white. */
  color: string;
  /** Name of the icon drawn by components/state/StateIcon. */
  icon: StateIconName;
  /** Green means "a receipt proves it": only `healthy`. Quiet states are neither alarming nor green. */
  tone: "good" | "quiet" | "bad";
};

export type StateIconName =
  | "lock"
  | "plug"
  | "refresh"
  | "brackets"
  | "cross"
  | "dots"
  | "question"
  | "warning"
  | "dashed"
  | "check";

export const STATE_META: Record<State, StateMeta> = {
  needs_auth: {
    label: "Needs auth",
    summary: "An authorization challenge is unresolved",
    owner: "credentials owner",
    color: "#8a5a00",
    icon: "lock",
    tone: "bad",
  },
  incompatible_session: {
    label: "Incompatible session",
    summary: "No answer, no supported version, or a required capability missing",
    owner: "integration owner",
    color: "#6639ba",
    icon: "plug",
    tone: "bad",
  },
  stale_catalog: {
    label: "Stale catalog",
    summary: "The tool list was incomplete, unread, expired or changed when the call was chosen",
    owner: "integration owner",
    color: "#0b6e80",
    icon: "refresh",
    tone: "bad",
  },
  protocol_error: {
    label: "Protocol error",
    summary: "The caller broke the contract: a bad request, or a tool it was not offered",
    owner: "client implementer",
    color: "#a0306f",
    icon: "brackets",
    tone: "bad",
  },
  tool_failed: {
    label: "Tool failed",
    summary: "The tool or server reported failure, or a read-only call never finished",
    owner: "tool owner",
    color: "#c21f2b",
    icon: "cross",
    tone: "bad",
  },
  working: {
    label: "Working",
    summary: "In flight, with valid activity, inside both clocks",
    owner: "nobody (quiet)",
    color: "#0860ca",
    icon: "dots",
    tone: "quiet",
  },
  effect_unknown: {
    label: "Effect unknown",
    summary: "No definitive answer and a write may have happened: reconcile before any retry",
    owner: "reconciliation queue",
    color: "#b04700",
    icon: "question",
    tone: "bad",
  },
  false_success: {
    label: "False success",
    summary: "The call succeeded but the destination or verifier says the deliverable is not there",
    owner: "outcome incident",
    color: "#9b0d24",
    icon: "warning",
    tone: "bad",
  },
  unverified: {
    label: "Unverified",
    summary: "No outcome receipt (none declared, still pending, or unreadable), or a layer not observed",
    owner: "nobody by default (coverage report)",
    color: "#57606a",
    icon: "dashed",
    tone: "quiet",
  },
  healthy: {
    label: "Healthy",
    summary: "Every layer's evidence agrees, with an outcome receipt",
    owner: "nobody",
    color: "#1a7f37",
    icon: "check",
    tone: "good",
  },
};

/** Display order: most dangerous first, so the eye lands on what needs a person. */
export const STATES_BY_SEVERITY: readonly State[] = STATE_SEVERITY_ORDER;

export function isKnownState(value: string | null | undefined): value is State {
  return (STATES as readonly string[]).includes(value ?? "");
}
