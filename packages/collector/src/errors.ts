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
