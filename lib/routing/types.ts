// Domain vocabulary shared by every routing module. Pure and client-safe: no I/O, no node: imports.

// The states and layers are the health-record contract's own (§2): client-safe data, shared, not copied.
export { LAYERS, type Layer, STATES, type State } from "../contract/states";
import type { Layer, State } from "../contract/states";

export const TRANSPORTS = ["stdio", "streamable-http", "sse", "other"] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** Ordered from most to least urgent. Maps 1:1 onto PagerDuty's critical/error/warning/info. */
export const SEVERITIES = ["critical", "high", "warning", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * States that must always reach a person: a possible duplicate write (effect_unknown) or a
 * missing deliverable (false_success). No inhibition rule may suppress them, no route may lower
 * their severity, and only a silence that names them explicitly can mute them.
 */
export const PROTECTED_STATES: readonly State[] = ["effect_unknown", "false_success"];
export const isProtectedState = (state: string): boolean =>
  (PROTECTED_STATES as readonly string[]).includes(state);

/** States that never produce an alert: they are quiet by definition. */
export const QUIET_STATES: readonly State[] = ["working", "healthy"];

/** A classified evidence chain, as the routing layer needs it (contract §4 plus identity fields). */
export interface ClassifiedChain {
  chainId: string;
  sessionId: string;
  state: State;
  layer: Layer;
  /** reasons[0] is the deciding reason. */
  reasons: string[];
  retrySafe?: boolean;
  shadowed?: { state: State; reason: string };
  /** Server name (session.server.name); absent when the server never answered. */
  server?: string;
  /** Client name (session.client.name). */
  client?: string;
  /** Tool name of the chain's tools/call, if any. */
  tool?: string;
  transport?: Transport;
  /** The record's free-form labels (env, team, agent…). */
  labels: Record<string, string>;
}

/** Flat label set an alert is matched on. Absent labels behave as "" (Alertmanager semantics). */
export type AlertLabels = Readonly<Record<string, string>>;

/** One alert a chain should have right now (identity + labels); timing lives with the caller. */
export interface Alert {
  /** Stable per (chainId, alert state): the receiver's deduplication key. */
  fingerprint: string;
  chainId: string;
  sessionId: string;
  state: State;
  layer: Layer;
  /** Reasons for this alert: the chain's reasons, or [shadowed.reason] for a shadowed alert. */
  reasons: string[];
  severity: Severity;
  retrySafe?: boolean;
  /** Set on an alert raised from `shadowed`: the headline state that shadows it. */
  shadowedBy?: State;
  labels: AlertLabels;
}
