import { MAX_DURATION_MS } from "../../../lib/contract/limits";
import { type CallContext, CallTracker } from "./call-tracker";
import type { ExpiryReason } from "./clocks";
import { type EffectHook, type OutcomeHook, outcomeVerifier, runEffectHook, runOutcomeHook } from "./hooks";
import type { CollectorRecord, SideEffect } from "./record-types";
import { assertId, checkLabels, newId } from "./records";
import type { SessionClient, ToolResult } from "./sdk/session-client";
import type { RequestId } from "./wire-tap";

export type CallToolOptions = {
  name: string;
  arguments?: Record<string, unknown>;
  /** "none" only when the call is known to be read-only; the default "unknown" counts as a write. */
  sideEffect?: SideEffect;
  /** Absolute budget from the start (for a task: the whole task); never resets. */
  deadlineMs: number;
  /** Idle window, reset by increasing progress or a newer task update; default = deadlineMs. */
  inactivityMs?: number;
  /** The caller's stable idempotency key for the write, used to reconcile. */
  operationKey?: string;
  verifyEffect?: EffectHook;
  verifyOutcome?: OutcomeHook;
  /** Defaults to a fresh id: one chain per call. */
  chainId?: string;
  labels?: Record<string, string>;
  /** Force task-augmented execution (tools whose catalog entry says taskSupport "required" always are). */
  task?: boolean;
  /** The caller's own cancellation; recorded as cancelled like the collector's clocks. */
  signal?: AbortSignal;
};

export type CallReport = {
  chainId: string;
  requestId?: RequestId;
  /** The tool's result, when the SDK accepted one. Never recorded. */
  result?: ToolResult;
  error?: unknown;
  /** Which collector clock stopped the call, if one did. */
  expired?: ExpiryReason;
  /**
   * Who stopped the call before the server answered: a collector clock (`error` is a `CallDeadlineError` /
   * `CallInactivityError`; recorded as `request.deadline_exceeded` / `request.inactive`) or the caller's
   * `signal` (`error` is its reason; recorded with `cancelledAt`, `request.cancelled`).
   */
  stoppedBy?: ExpiryReason | "caller";
  /** Every record this call emitted, in order; the last one is the chain's current evidence. */
  records: CollectorRecord[];
  record: CollectorRecord;
};

/** SDK-side timeout kept beyond our deadline: the collector's clocks decide, the SDK's never fire first. */
const SDK_TIMEOUT_SLACK_MS = 5_000;

export async function runCall(ctx: CallContext, options: CallToolOptions): Promise<CallReport> {
  const { deadlineMs } = options;
  const inactivityMs = options.inactivityMs ?? deadlineMs;
  if (!Number.isInteger(deadlineMs) || deadlineMs <= 0 || deadlineMs > MAX_DURATION_MS)
    throw new RangeError(`deadlineMs must be a positive integer ≤ ${MAX_DURATION_MS} (365 days)`);
  if (!Number.isInteger(inactivityMs) || inactivityMs <= 0 || inactivityMs > deadlineMs)
    throw new RangeError("inactivityMs must be a positive integer ≤ deadlineMs");
  const verifier = outcomeVerifier(options.verifyOutcome);
  const chainId = assertId(options.chainId ?? newId("chain"), "chainId");
  // Only the fields that have a value, set in the record's order: an object that loses a key (`delete`) becomes a
  // slow dictionary, and the call layer is copied into every record of the call.
  const inCatalog = ctx.catalog.has(options.name);
  const operationKey =
    options.operationKey === undefined ? undefined : assertId(options.operationKey, "operationKey");
  const tracker = new CallTracker(
    ctx,
    chainId,
    {
      tool: options.name.slice(0, 128),
      ...(inCatalog === undefined ? {} : { inCatalog }),
      sideEffect: options.sideEffect ?? "unknown",
      ...(operationKey === undefined ? {} : { operationKey }),
      ...(verifier === undefined ? {} : { expectedVerifier: verifier.kind }),
      deadlineMs,
      inactivityMs,
    },
    checkLabels(options.labels),
  );
  let callerAborted = false;
  const onCallerAbort = () => {
    callerAborted = !tracker.clocks.expired;
    tracker.abort.abort(options.signal?.reason);
  };
  if (options.signal?.aborted) onCallerAbort();
  options.signal?.addEventListener("abort", onCallerAbort, { once: true });

  // Only an SDK with a task runtime (1.x) runs a task-augmented call; elsewhere the plain call goes out.
  const useTask =
    ctx.client.tasks !== undefined && (options.task === true || ctx.catalog.requiresTask(options.name));
  let outcome: { result?: ToolResult; error?: unknown };
  try {
    outcome = useTask
      ? await runTask(tracker, ctx.client, options)
      : await runPlain(tracker, ctx.client, options);
  } finally {
    options.signal?.removeEventListener("abort", onCallerAbort);
    tracker.clocks.stop();
  }
  if (tracker.requestId === undefined) {
    // Nothing reached the wire (e.g. not connected): there is no call to record.
    tracker.finish();
    throw outcome.error ?? new Error("tools/call was not sent");
  }
  // Ended without a server answer and not by a collector clock: the client's side of the request is over (the
  // caller aborted, the connection closed, the HTTP POST failed), so the chain must not stay in flight. A
  // server's JSON-RPC error is a response (the tap saw it), whatever the SDK made of it.
  if (!tracker.call.response && outcome.error !== undefined) {
    tracker.cancelled(Date.now());
    // The SDK reports any abort as its client-side McpError -32001, the code a server may answer with too:
    // hand back who stopped the call instead (a server's own error stays as the SDK built it).
    if (tracker.clocks.expired) outcome.error = tracker.abort.signal.reason;
    else if (callerAborted) outcome.error = options.signal?.reason;
  }
  tracker.snapshot("end");

  const hookInput = { args: options.arguments, result: outcome.result, operationKey: options.operationKey };
  if (options.verifyEffect) tracker.call.effect = await runEffectHook(options.verifyEffect, hookInput);
  if (verifier) tracker.call.outcome = await runOutcomeHook(verifier, hookInput);
  if (options.verifyEffect || verifier) tracker.snapshot("verified");
  tracker.finish();

  const records = [...tracker.records];
  const record = records[records.length - 1] as CollectorRecord;
  return {
    chainId,
    requestId: tracker.requestId,
    ...outcome,
    expired: tracker.clocks.expired,
    stoppedBy: tracker.clocks.expired ?? (callerAborted && !tracker.call.response ? "caller" : undefined),
    records,
    record,
  };
}

function sdkOptions(tracker: CallTracker, options: CallToolOptions) {
  return {
    signal: tracker.abort.signal,
    timeout: options.deadlineMs + SDK_TIMEOUT_SLACK_MS,
    // Passing onprogress makes the SDK send a progressToken (the request id); the tap records the entries.
    onprogress: () => undefined,
  };
}

async function runPlain(tracker: CallTracker, client: SessionClient, options: CallToolOptions) {
  const release = tracker.claim();
  try {
    return {
      result: await client.callTool(
        { name: options.name, arguments: options.arguments },
        sdkOptions(tracker, options),
      ),
    };
  } catch (error) {
    return { error };
  } finally {
    release();
  }
}

async function runTask(tracker: CallTracker, client: SessionClient, options: CallToolOptions) {
  const stream = (client.tasks as NonNullable<SessionClient["tasks"]>).callToolStream(
    { name: options.name, arguments: options.arguments },
    sdkOptions(tracker, options),
  );
  const iterator = stream[Symbol.asyncIterator]();
  const release = tracker.claim();
  const first = iterator.next(); // the generator sends tools/call synchronously here
  release();
  const aborted = new Promise<"aborted">((resolve) => {
    if (tracker.abort.signal.aborted) resolve("aborted");
    tracker.abort.signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  const out: { result?: ToolResult; error?: unknown } = {};
  try {
    // Race each step against the clocks: the SDK only checks the signal between polls.
    for (let step = await Promise.race([first, aborted]); step !== "aborted" && !step.done; ) {
      const message = step.value;
      if (message.type === "taskStatus") tracker.taskUpdate(message.task, Date.now());
      else if (message.type === "result") {
        out.result = message.result;
        if (tracker.call.task) tracker.call.task.result = { isError: out.result.isError === true };
      } else if (message.type === "error") out.error = message.error;
      step = await Promise.race([iterator.next(), aborted]);
    }
  } catch (error) {
    out.error = error;
  }
  if (tracker.abort.signal.aborted) {
    out.error ??= tracker.abort.signal.reason;
    void iterator.return(undefined).catch(() => undefined);
    await tracker.cancelTask();
  }
  return out;
}
