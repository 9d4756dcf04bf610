import type { Call } from "../contract/record";
import { type Decision, decide, toMs } from "./decision";
import { decideEffectAndOutcome, decideUnfinished, usableEvidence } from "./evidence-rules";
import { isCallerError } from "./json-rpc-codes";
import { scanProgress } from "./progress";
import { REASONS, type ReasonCode } from "./reasons";

/** Rule 14's classification of what the call has to show for itself. */
type TerminalEvidence =
  | { path: "result"; isError: boolean; terminalAtMs?: number }
  | { path: "task_failed"; code?: number }
  | { path: "unfinished"; reasons: ReasonCode[] }
  | { path: "in_flight"; reason: ReasonCode };

/**
 * Rules 12–22 for a call, as if every session and catalog rule had passed. Also used on its
 * own to compute `shadowed` (§4).
 */
export function evaluateCall(call: Call, atMs: number): Decision {
  // 12. Servers answer unknown tools with an error or with isError: either way the caller is at fault.
  if (call.inCatalog === false) return decide("protocol_error", REASONS.REQUEST_UNKNOWN_TOOL);
  // 13.
  const response = call.response;
  if (response?.kind === "error") {
    return isCallerError(response.error?.code)
      ? decide("protocol_error", REASONS.REQUEST_CALLER_ERROR)
      : decide("tool_failed", REASONS.REQUEST_SERVER_ERROR);
  }
  // 14.
  const terminal = findTerminalEvidence(call);
  const startedMs = toMs(call.startedAt);
  const pathCodes: ReasonCode[] = terminal.path === "unfinished" ? [...terminal.reasons] : [];
  // 15, "in every path": invalid progress is reported and ignored.
  const terminalAtMs = terminal.path === "result" ? terminal.terminalAtMs : undefined;
  const progress = scanProgress(call, startedMs, atMs, terminalAtMs);
  if (progress.inconsistent) pathCodes.push(REASONS.REQUEST_PROGRESS_INCONSISTENT);

  if (terminal.path === "task_failed") {
    return isCallerError(terminal.code)
      ? decide("protocol_error", REASONS.TASK_CALLER_ERROR, pathCodes)
      : decide("tool_failed", REASONS.TASK_FAILED, pathCodes);
  }

  let unfinished = terminal.path === "unfinished";
  if (terminal.path === "in_flight") {
    const lastActivityMs = lastActivity(call, startedMs, progress.lastValidAtMs);
    const deadlineMs = startedMs + call.deadlineMs;
    const idleUntilMs = lastActivityMs + call.inactivityMs;
    // Inclusive: exactly at either limit is still inside it.
    if (atMs <= deadlineMs && atMs <= idleUntilMs) {
      return {
        ...decide("working", terminal.reason, pathCodes),
        nextCheckAtMs: Math.min(deadlineMs, idleUntilMs),
      };
    }
    pathCodes.push(atMs > deadlineMs ? REASONS.REQUEST_DEADLINE_EXCEEDED : REASONS.REQUEST_INACTIVE);
    unfinished = true;
  }

  // 16.
  const evidence = usableEvidence(call, startedMs, pathCodes);
  // 17.
  if (unfinished) return decideUnfinished(call, evidence, pathCodes);
  // 18.
  if (terminal.path === "result" && terminal.isError) {
    return decide("tool_failed", REASONS.REQUEST_TOOL_ERROR, pathCodes);
  }
  // 19–22.
  return decideEffectAndOutcome(call, evidence, pathCodes);
}

/** Rule 14, in the contract's order. Error responses were handled by rule 13. */
function findTerminalEvidence(call: Call): TerminalEvidence {
  const { response, task } = call;
  const resultType = response?.resultType ?? "complete";
  if (response !== undefined && resultType === "complete") {
    return { path: "result", isError: response.isError ?? false, terminalAtMs: toMs(response.at) };
  }
  if (resultType === "task" && task?.status === "completed") {
    return { path: "result", isError: task.result?.isError ?? false };
  }
  if (resultType === "task" && task?.status === "failed")
    return { path: "task_failed", code: task.error?.code };

  // Cancellation is cooperative: a call the client gave up on is unfinished even if the
  // server still reports it working.
  const cancelReasons: ReasonCode[] = [];
  if (call.cancelledAt !== undefined) cancelReasons.push(REASONS.REQUEST_CANCELLED);
  if (task?.status === "cancelled") cancelReasons.push(REASONS.TASK_CANCELLED);
  if (cancelReasons.length > 0) return { path: "unfinished", reasons: cancelReasons };

  if (task?.status === "working") return { path: "in_flight", reason: REASONS.TASK_WORKING };
  if (task?.status === "input_required" || resultType === "input_required") {
    return { path: "in_flight", reason: REASONS.REQUEST_INPUT_REQUIRED };
  }
  // No response yet, or a task handle without a status.
  return { path: "in_flight", reason: REASONS.REQUEST_IN_FLIGHT };
}

/** Rule 15's `lastActivity`: only valid activity resets the idle window. */
function lastActivity(call: Call, startedMs: number, lastValidProgressMs: number | undefined): number {
  let last = startedMs;
  if (lastValidProgressMs !== undefined) last = Math.max(last, lastValidProgressMs);
  if (call.response?.resultType === "input_required") last = Math.max(last, toMs(call.response.at));
  const task = call.task;
  if (task !== undefined && (task.status === "working" || task.status === "input_required")) {
    last = Math.max(last, toMs(task.updatedAt));
  }
  return last;
}
