/**
 * An operation is everything Receipt knows about one `call.operationKey`: the chains whose current record carries
 * it (its attempts) and the retry guard's latest lease. Its status is derived here from those facts on every read,
 * never stored, so it cannot go stale when a record arrives or an operator reconciles a chain.
 */

/** What one attempt's evidence says about its write. */
export type AttemptEffect = "pending" | "unknown" | "absent" | "committed";

export type OperationStatus = "none" | "in_flight" | "in_doubt" | "absent" | "committed";

export type AttemptFacts = {
  chainId: string;
  state: string;
  reasons: readonly string[];
  retrySafe: boolean | null;
  shadowedState: string | null;
  tool: string | null;
  serverName: string | null;
  /** The current record's observedAt. */
  observedAt: Date;
  /** When Receipt first stored a record of this chain: what consumes a lease granted before it. */
  firstSeenAt: Date;
};

/**
 * What the destination showed for a lease that expired with no record (the agent may have died after sending): set
 * by an operator or a destination check. Only an expired lease can be settled; a new lease starts unsettled.
 */
export type LeaseSettlement = {
  effect: "committed" | "absent";
  receipt: string | null;
  by: string;
  at: Date;
};

export type LeaseFacts = { holder: string; grantedAt: Date; until: Date; settled?: LeaseSettlement | null };

/** `live`: granted and not yet used; `consumed`: a record with the key arrived after it was granted; `expired`. */
export type LeaseState = "live" | "consumed" | "expired";

/** States reached only after the call returned success, or the destination showed the write committed (rules 19–22). */
const SUCCEEDED = new Set(["healthy", "unverified", "false_success"]);

/**
 * The effect of one attempt, from its classification (contract §2, §4). `retrySafe` is the contract's proof that a
 * repeat cannot duplicate a write (read-only, effect absent, refused without running), so it settles `absent`. A
 * success on the request layer, or a destination showing the effect committed, is `committed` whatever the outcome
 * verifier said. Anything else that ran and is not proven absent (a write whose tool reported an error, a state
 * decided before the request layer with no shadow) is `unknown`: the contract retries those only if `retrySafe`.
 */
export function attemptEffect(attempt: AttemptFacts): AttemptEffect {
  if (attempt.retrySafe === true) return "absent";
  if (attempt.state === "working") return "pending";
  if (attempt.state === "effect_unknown" || attempt.shadowedState === "effect_unknown") return "unknown";
  if (SUCCEEDED.has(attempt.state) || attempt.shadowedState === "false_success") return "committed";
  return "unknown";
}

export function leaseState(lease: LeaseFacts, attempts: readonly AttemptFacts[], now: Date): LeaseState {
  if (attempts.some((attempt) => attempt.firstSeenAt.getTime() >= lease.grantedAt.getTime()))
    return "consumed";
  return lease.until.getTime() > now.getTime() ? "live" : "expired";
}

/**
 * Committed wins (the write happened: never repeat it); then anything still running; then anything unsettled,
 * including a lease that expired with no record (the agent may have died after sending); then proven absent.
 */
export function operationStatus(
  attempts: readonly AttemptFacts[],
  lease: LeaseFacts | null,
  now: Date,
): OperationStatus {
  const effects = attempts.map(attemptEffect);
  const held = lease ? leaseState(lease, attempts, now) : null;
  // An expired lease's write, once the destination was read: committed like an attempt, or proven absent.
  const settled = held === "expired" ? (lease?.settled?.effect ?? null) : null;
  if (effects.includes("committed") || settled === "committed") return "committed";
  if (held === "live" || effects.includes("pending")) return "in_flight";
  if ((held === "expired" && settled === null) || effects.includes("unknown")) return "in_doubt";
  if (effects.length > 0 || settled === "absent") return "absent";
  return "none";
}
