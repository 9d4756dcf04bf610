/** Errors the collector throws. */
export { errorClass } from "../../../lib/contract/error-class";

/** Thrown instead of retrying when the chain's classification says a retry is not safe. */
export class RetryRefusedError extends Error {
  override readonly name = "RetryRefusedError";
  constructor(
    readonly chainId: string,
    readonly state: string,
    readonly reasons: readonly string[],
  ) {
    super(`automatic retry refused for chain ${chainId}: ${state} (${reasons.join(", ")})`);
  }
}

/** Thrown by `connect` when the session could not be established; the record was emitted. */
export class SessionFailedError extends Error {
  override readonly name = "SessionFailedError";
  constructor(
    readonly chainId: string,
    override readonly cause: unknown,
    /** The session record that was emitted (no call): needs_auth, incompatible_session… */
    readonly record: unknown,
  ) {
    super(`MCP session failed (chain ${chainId})`, { cause });
  }
}

/**
 * The abort reason (and `CallReport.error`) when one of the collector's own clocks stopped a call: the call's
 * `deadlineMs` ran out (`CallDeadlineError`) or its `inactivityMs` passed without valid activity
 * (`CallInactivityError`). A caller's own abort keeps the caller's reason; a server's JSON-RPC error is its own.
 */
export class CallStoppedError extends Error {
  constructor(
    readonly chainId: string,
    readonly reason: "deadline" | "inactivity",
    readonly limitMs: number,
  ) {
    super(`tools/call stopped by the collector: ${reason} of ${limitMs} ms reached (chain ${chainId})`);
  }
}

export class CallDeadlineError extends CallStoppedError {
  override readonly name = "CallDeadlineError";
  constructor(chainId: string, deadlineMs: number) {
    super(chainId, "deadline", deadlineMs);
  }
}

export class CallInactivityError extends CallStoppedError {
  override readonly name = "CallInactivityError";
  constructor(chainId: string, inactivityMs: number) {
    super(chainId, "inactivity", inactivityMs);
  }
}
