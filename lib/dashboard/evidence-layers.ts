import { layerOfReason, type ReasonCode } from "../classifier/reasons";
import type { HealthRecord } from "../contract/record";
import { LAYERS, type Layer, type State } from "../contract/states";
import type { OperatorEffectView } from "./api-types";
import { evidenceGaps } from "./evidence-gaps";
import { type EffectiveEffect, type Fact, layerFacts } from "./layer-facts";
import { type UnseenLayer, unseenLayer } from "./unseen-layers";

/**
 * ok: the layer's evidence passed. failed: it decided a bad state. missing: the evidence that would settle it is
 * absent. warning: it passed, but some of its evidence was ignored. pending: in flight, inside both clocks.
 * not_reached: an earlier layer decided the state, so this one was not evaluated (its evidence is still shown).
 * not_observed: the reporter did not see this layer (contract v1.2): neither failed nor passed, a coverage gap.
 */
export type LayerStatus =
  | "ok"
  | "failed"
  | "missing"
  | "warning"
  | "pending"
  | "not_reached"
  | "not_observed";

export type LayerView = {
  layer: Layer;
  status: LayerStatus;
  /** The layer whose rule decided the chain's state. */
  deciding: boolean;
  /** The layer of the shadowed state's reason, hidden behind a session or catalog decision. */
  shadowed: boolean;
  /** The classification's reason codes that belong to this layer, deciding one first. */
  reasons: string[];
  facts: Fact[];
  gaps: string[];
  /** Set when the reporter did not see this layer: what it missed and what would make it visible. */
  unseen?: UnseenLayer;
};

export type ClassificationView = {
  state: State;
  layer: string;
  reasons: string[];
  shadowed: { state: State; reason: string } | null;
};

// Path codes that mean the call never gave a definitive answer: the request layer is missing its result.
const NO_ANSWER_CODES = new Set([
  "request.deadline_exceeded",
  "request.inactive",
  "request.cancelled",
  "task.cancelled",
]);
const MISSING_REASONS = new Set([
  "session.no_answer",
  "catalog.not_read",
  "effect.unreconciled",
  "outcome.pending",
  "outcome.no_receipt",
  "outcome.unavailable",
  "chain.no_call",
]);

// Contract v1.2: the codes of a layer the reporter did not see. One of them decides only a would-be healthy chain,
// whose later layers were all evaluated and passed.
const NOT_OBSERVED_CODES = new Set(["session.not_observed", "catalog.not_observed"]);
// A path code that marks weak evidence, not ignored evidence: in a passed outcome layer it is no warning.
const WEAK_EVIDENCE = "outcome.weak_evidence";

function layerOf(code: string): Layer | undefined {
  try {
    return layerOfReason(code as ReasonCode);
  } catch {
    return undefined;
  }
}

function decidingStatus(state: State, reason: string | undefined): LayerStatus {
  if (state === "healthy") return "ok";
  if (state === "working") return "pending";
  if (state === "effect_unknown" || state === "unverified" || MISSING_REASONS.has(reason ?? ""))
    return "missing";
  return "failed";
}

/** The five layers of one chain as the chain page draws them. */
export function evidenceLayers(
  record: HealthRecord,
  result: ClassificationView,
  effect: EffectiveEffect | undefined = record.call?.effect,
): LayerView[] {
  const decidingIndex = LAYERS.indexOf(result.layer as Layer);
  const shadowLayer = result.shadowed ? layerOf(result.shadowed.reason) : undefined;
  const decidedByUnseen = NOT_OBSERVED_CODES.has(result.reasons[0] ?? "");
  return LAYERS.map((layer, index) => {
    const reasons = result.reasons.filter((code) => layerOf(code) === layer);
    const gaps = evidenceGaps(record, layer, effect);
    const shadowed = shadowLayer === layer;
    const unseen = unseenLayer(record, layer);
    // A seen rule (1, 2 or 7) that decided in an unseen session layer still failed there.
    const decidedBySeenRule = index === decidingIndex && !decidedByUnseen;
    let status: LayerStatus;
    if (unseen && !decidedBySeenRule) status = "not_observed";
    else if (!record.call && (layer === "request" || layer === "effect"))
      status = layer === "request" ? "missing" : "not_reached";
    else if (index === decidingIndex) status = decidingStatus(result.state, result.reasons[0]);
    else if (decidedByUnseen && index > decidingIndex) status = passedLayerStatus(reasons, gaps, layer);
    else if (index > decidingIndex) {
      status =
        shadowed && result.shadowed
          ? decidingStatus(result.shadowed.state, result.shadowed.reason)
          : "not_reached";
    } else status = passedLayerStatus(reasons, gaps, layer);
    return {
      layer,
      status,
      deciding: index === decidingIndex,
      shadowed,
      reasons: shadowed && result.shadowed ? [result.shadowed.reason, ...reasons] : reasons,
      facts: layerFacts(record, layer, effect),
      gaps,
      ...(unseen ? { unseen } : {}),
    };
  });
}

/**
 * A layer the classifier went through without deciding there: before the deciding layer, or after an unseen layer
 * that turned a would-be healthy chain unverified (every later layer passed).
 */
function passedLayerStatus(reasons: string[], gaps: string[], layer: Layer): LayerStatus {
  if (reasons.some((code) => NO_ANSWER_CODES.has(code))) return "missing";
  if (reasons.some((code) => code !== WEAK_EVIDENCE)) return "warning";
  return gaps.length > 0 && layer === "effect" ? "missing" : "ok";
}

/**
 * The destination evidence in force: an operator's reconciliation stands in for the record's own check unless the
 * record brings a newer one (the same rule as lib/chains/operator-evidence.ts).
 */
export function effectiveEffect(
  record: HealthRecord,
  operatorEffects: {
    status: "committed" | "absent";
    receipt: string | null;
    checkedAt: string;
    actor: string;
  }[],
): EffectiveEffect | undefined {
  const own = record.call?.effect;
  const latest = [...operatorEffects].sort((a, b) => Date.parse(b.checkedAt) - Date.parse(a.checkedAt))[0];
  if (!latest || (own && Date.parse(own.checkedAt) >= Date.parse(latest.checkedAt))) return own;
  return {
    status: latest.status,
    checkedAt: latest.checkedAt,
    ...(latest.receipt ? { receipt: latest.receipt } : {}),
    recordedBy: latest.actor,
  };
}

/**
 * The record as the evidence in force shows it: a destination check's outcome stands in for the record's own
 * `call.outcome` unless the record brings a newer one (the same rule as lib/chains/operator-evidence.ts).
 */
export function withRecordedOutcome(
  record: HealthRecord,
  operatorEffects: { checkedAt: string; outcome: OperatorEffectView["outcome"] }[],
): HealthRecord {
  const call = record.call;
  const latest = operatorEffects
    .filter((effect) => effect.outcome !== null)
    .sort((a, b) => Date.parse(b.checkedAt) - Date.parse(a.checkedAt))[0];
  if (!call || !latest?.outcome) return record;
  if (call.outcome && Date.parse(call.outcome.checkedAt) >= Date.parse(latest.checkedAt)) return record;
  const { verdict, verifier, receipt } = latest.outcome;
  return {
    ...record,
    call: {
      ...call,
      outcome: { checkedAt: latest.checkedAt, verifier, verdict, ...(receipt ? { receipt } : {}) },
    },
  };
}
