import type { ReasonCode } from "../classifier/reasons";

/**
 * Every reason code of contract §3 in words, so the dashboard never shows a bare code. `what` is what the
 * evidence says; `next` is what the person on call usually does about it.
 */
export type ReasonText = { title: string; what: string; next?: string };

export const REASON_TEXT: Record<ReasonCode, ReasonText> = {
  "auth.challenge_unresolved": {
    title: "Authorization challenge unresolved",
    what: "The server answered 401/403 and no later request with new credentials succeeded.",
    next: "Renew or re-scope the credentials the agent uses for this server.",
  },
  "auth.url_elicitation_required": {
    title: "User must authorize in a browser",
    what: "The server answered -32042: a person has to open a URL and grant access before the call can run.",
    next: "Ask the credentials owner to complete the authorization URL.",
  },
  "session.no_answer": {
    title: "Server never answered",
    what: "No server identified itself and no protocol version was agreed: the session never started.",
    next: "Check that the server is running and reachable from the agent.",
  },
  "session.no_agreed_version": {
    title: "No agreed protocol version",
    what: "The server answered but no protocol version was accepted by both sides.",
  },
  "session.version_unsupported": {
    title: "Protocol version not supported by the client",
    what: "The server serves no protocol version the client supports: it settled on another, named only others, or answered -32022.",
    next: "Upgrade the client or pin the server to a version both support.",
  },
  "session.not_initialized": {
    title: "Session not initialized",
    what: "A legacy-era session never sent notifications/initialized, so the handshake is incomplete.",
  },
  "session.capability_missing": {
    title: "Required capability missing",
    what: "A capability this run requires is not offered by one side (or the server answered -32021).",
  },
  "session.not_observed": {
    title: "Handshake not observed",
    what: "The reporter did not see this session's initialize (or server/discover) traffic, so the version, handshake and capability rules were not checked. A coverage gap, not a failure.",
    next: "Export the session's initialize span in the same trace, or put the session id on it, so the handshake can be joined.",
  },
  "catalog.not_read": {
    title: "Tool list never read",
    what: "The client called without reading tools/list, so it could not know what it was offered.",
  },
  "catalog.incomplete": {
    title: "Tool list read only partly",
    what: "The last refresh stopped before following nextCursor to the last page.",
  },
  "catalog.changed_since_refresh": {
    title: "Catalog changed after the last refresh",
    what: "The server announced list_changed after the client's last tools/list and before the call was chosen.",
    next: "Re-read the tool list once, then retry the choice.",
  },
  "catalog.expired": {
    title: "Catalog expired",
    what: "The call was chosen after the tool list's ttlMs cache hint had run out.",
  },
  "catalog.not_observed": {
    title: "Tool list not observed",
    what: "The reporter did not see this session's tools/list traffic, so the catalog rules were not checked. A coverage gap, not a failure.",
    next: "Export the session's tools/list span, or let the collector wrap the client before it lists tools.",
  },
  "chain.no_call": {
    title: "No tool call in this chain",
    what: "The session and catalog were observed but nothing was invoked, so there is nothing to receipt.",
  },
  "request.unknown_tool": {
    title: "Tool not in the catalog",
    what: "The client called a tool it was not offered in the last catalog read.",
  },
  "request.caller_error": {
    title: "Caller error",
    what: "The server rejected the request as malformed (parse error, invalid request, unknown method or invalid params).",
    next: "Fix the caller; retrying the same request will fail the same way.",
  },
  "request.server_error": {
    title: "Server returned an error",
    what: "The server answered with a JSON-RPC error that is not the caller's fault.",
  },
  "task.caller_error": {
    title: "Task rejected the caller's input",
    what: "The task failed with a caller-side JSON-RPC error.",
  },
  "task.failed": {
    title: "Task failed",
    what: "The server reported the task as failed.",
  },
  "request.cancelled": {
    title: "Call cancelled by the client",
    what: "The client cancelled or closed the stream before a definitive result arrived.",
  },
  "task.cancelled": {
    title: "Task cancelled",
    what: "The task ended as cancelled without a definitive result.",
  },
  "task.working": {
    title: "Task still working",
    what: "The server reports the task as working and it is inside both clocks.",
  },
  "request.input_required": {
    title: "Waiting for input",
    what: "The server asked for more input before it can finish.",
  },
  "request.in_flight": {
    title: "In flight",
    what: "The call has no response yet and is still inside its deadline and inactivity window.",
  },
  "request.deadline_exceeded": {
    title: "Deadline exceeded",
    what: "No definitive result arrived before the call's absolute deadline.",
  },
  "request.inactive": {
    title: "No activity within the inactivity window",
    what: "Neither valid progress nor a status update arrived within the idle window.",
  },
  "request.progress_inconsistent": {
    title: "Inconsistent progress ignored",
    what: "A progress notification had the wrong token, went backwards or fell outside the call; it was ignored.",
  },
  "request.unfinished_read_only": {
    title: "Read-only call never finished",
    what: "A call known to be read-only did not finish; it changed nothing, so it is safe to retry.",
  },
  "request.tool_error": {
    title: "Tool reported an error",
    what: "The call completed with isError: the tool itself says it failed.",
  },
  "effect.checked_before_call": {
    title: "Destination check predates the call",
    what: "The destination was checked before the call started, so that check was ignored.",
  },
  "effect.absent": {
    title: "Destination shows nothing",
    what: "The destination was checked after the call and the expected change is not there.",
  },
  "effect.unreconciled": {
    title: "Write not reconciled",
    what: "The call gave no definitive answer and nobody has checked whether the write happened.",
    next: "Check the destination and record committed (with its receipt) or absent. Do not retry blindly.",
  },
  "outcome.checked_before_call": {
    title: "Verifier ran before the call",
    what: "The outcome was verified before the call started, so that verdict was ignored.",
  },
  "outcome.pending": {
    title: "Verifier pending",
    what: "A verifier was declared before the call but has not reported a verdict yet.",
  },
  "outcome.no_receipt": {
    title: "No outcome receipt",
    what: "No verifier was declared for this call, so nothing proves the deliverable exists.",
    next: "Declare a verifier for this tool (see the coverage report).",
  },
  "outcome.unavailable": {
    title: "Verifier could not read the result",
    what: "The verifier ran but could not read the deliverable back, so it proves nothing either way.",
  },
  "outcome.verifier_failed": {
    title: "Verifier says the deliverable is wrong",
    what: "The call reported success but the outcome verifier failed.",
  },
  "outcome.verified": {
    title: "Outcome verified",
    what: "A verifier read the deliverable back and it passed.",
  },
  "outcome.weak_evidence": {
    title: "Weak evidence (LLM judge)",
    what: "The verdict comes from an LLM judge, not a hash, row or status: treat it as weak evidence.",
  },
};

/** Words for any code, including one this build does not know yet (reason codes are append-only API). */
export function reasonText(code: string): ReasonText {
  return (
    (REASON_TEXT as Record<string, ReasonText>)[code] ?? {
      title: code,
      what: "A reason code this version of the dashboard does not describe yet.",
    }
  );
}
