/**
 * Errors the collector throws, and the sanitized class it records for a JSON-RPC error.
 * The class is derived from the numeric code only: an error *message* can carry arguments,
 * paths or tokens, so it never reaches a record.
 */
const CLASSES: Record<number, string> = {
  [-32700]: "parse_error",
  [-32600]: "invalid_request",
  [-32601]: "method_not_found",
  [-32602]: "invalid_params",
  [-32603]: "internal_error",
  [-32000]: "connection_closed",
  [-32001]: "request_timeout",
  [-32002]: "resource_not_found",
  [-32020]: "invalid_meta",
  [-32021]: "capability_missing",
  [-32022]: "version_unsupported",
  [-32042]: "url_elicitation_required",
};

export function errorClass(code: number): string {
  const known = CLASSES[code];
  if (known) return known;
  if (code >= -32099 && code <= -32000) return "server_error";
  if (code >= -32768 && code <= -32000) return "reserved_error";
  return "application_error";
}

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
