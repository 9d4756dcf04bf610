/** The ten health states of contract §2 (nine from the seed article, plus `unverified`). */
export const STATES = [
  "needs_auth",
  "incompatible_session",
  "stale_catalog",
  "protocol_error",
  "tool_failed",
  "working",
  "effect_unknown",
  "false_success",
  "unverified",
  "healthy",
] as const;

export type State = (typeof STATES)[number];

/** The five layers of the evidence chain, in evaluation order. */
export const LAYERS = ["session", "catalog", "request", "effect", "outcome"] as const;

export type Layer = (typeof LAYERS)[number];

/**
 * Most dangerous first. Used to summarise many chains into one worst state: an effect in
 * doubt or a false success outranks an auth problem because it may already have done (or
 * failed to do) something in the world; `unverified` outranks `working` and `healthy` because
 * missing evidence is never green.
 */
export const STATE_SEVERITY_ORDER: readonly State[] = [
  "effect_unknown",
  "false_success",
  "needs_auth",
  "incompatible_session",
  "stale_catalog",
  "protocol_error",
  "tool_failed",
  "unverified",
  "working",
  "healthy",
];

const SEVERITY_RANK = new Map<State, number>(STATE_SEVERITY_ORDER.map((state, rank) => [state, rank]));

/** The most dangerous of `states`, or `undefined` when there are none. */
export function worstState(states: Iterable<State>): State | undefined {
  let worst: State | undefined;
  let worstRank = Number.POSITIVE_INFINITY;
  for (const state of states) {
    const rank = SEVERITY_RANK.get(state) ?? Number.POSITIVE_INFINITY;
    if (rank < worstRank) {
      worst = state;
      worstRank = rank;
    }
  }
  return worst;
}

export function isState(value: unknown): value is State {
  return typeof value === "string" && SEVERITY_RANK.has(value as State);
}
