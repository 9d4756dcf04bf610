import { createHash } from "node:crypto";
import type { CatalogTracker } from "./catalog";
import { CallClocks, type ExpiryReason } from "./clocks";
import { CallDeadlineError, CallInactivityError, errorClass } from "./errors";
import type { CallEvidence, CollectorRecord, TaskStatus } from "./record-types";
import { assertId, buildRecord } from "./records";
import type { SessionClient } from "./sdk/session-client";
import type { SessionRecorder } from "./session";
import { iso } from "./time";
import type { RequestId, WireResponse, WireTap } from "./wire-tap";

export type CallContext = {
  client: SessionClient;
  tap: WireTap;
  session: SessionRecorder;
  catalog: CatalogTracker;
  labels?: Record<string, string>;
  emit: (record: CollectorRecord) => void;
  /** Minimum gap between two "still working" records emitted on progress or task updates. */
  heartbeatMs: number;
};
const TASK_STATUSES: readonly TaskStatus[] = [
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
];

/**
 * The live Call layer of one `tools/call`: everything is filled from what crosses the wire
 * (the tap), never from what the SDK makes of it, and snapshotted into records by phase.
 */
export class CallTracker {
  readonly call: CallEvidence;
  readonly clocks: CallClocks;
  readonly abort = new AbortController();
  requestId?: RequestId;
  readonly records: CollectorRecord[] = [];
  private readonly emitted = new Set<string>();
  private readonly unsubscribe: (() => void)[] = [];
  private lastValidProgress = Number.NEGATIVE_INFINITY;
  private lastHeartbeat = 0;
  private changes = 0;
  /** The server's task id as sent (the record may carry a hashed form). */
  private rawTaskId?: string;
  /** Set when a collector clock stopped the call: later records are observed after it ran out. */
  private expiredAfter?: number;

  constructor(
    private readonly ctx: CallContext,
    readonly chainId: string,
    call: Omit<CallEvidence, "requestId" | "startedAt" | "progress">,
    private readonly labels?: Record<string, string>,
  ) {
    const startedAt = Date.now();
    this.call = { requestId: 0, ...call, startedAt: iso(startedAt), progress: [] };
    this.clocks = new CallClocks(startedAt, call.deadlineMs, call.inactivityMs, (reason) =>
      this.expire(reason),
    );
    this.unsubscribe.push(
      ctx.tap.onNotification((method, params, at) => this.onNotification(method, params, at)),
    );
    this.unsubscribe.push(
      ctx.tap.onNotificationSent((method, params, at) => {
        if (method === "notifications/cancelled" && params.requestId === this.requestId) this.cancelled(at);
      }),
    );
    this.unsubscribe.push(
      ctx.tap.onRequestSent((method, _id, params, at) => {
        if (method === "tasks/cancel" && this.rawTaskId && params.taskId === this.rawTaskId)
          this.cancelled(at);
      }),
    );
  }

  /** Called (synchronously) when the SDK puts our tools/call on the wire. */
  sent(id: RequestId, params: Record<string, unknown>): void {
    this.requestId = id;
    this.call.requestId = id;
    const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
    if (typeof token === "string" || typeof token === "number") this.call.progressToken = token;
    this.ctx.tap.onResponse(id, (response) => this.responded(response));
    this.snapshot("start");
  }

  /**
   * Hands the next outgoing tools/call of this tool to this tracker; returns the release for an
   * unused claim. SDK 1.x sends synchronously inside `callTool`, SDK 2.x after a few awaits, so the
   * claim stays open until the call settles; the tool name keeps concurrent calls apart.
   */
  claim(): () => void {
    return this.ctx.tap.claimNextRequest(
      "tools/call",
      (id, params) => this.sent(id, params),
      (params) => params.name === this.call.tool,
    );
  }

  /** Best-effort `tasks/cancel` for a task still running when a clock or the caller stopped it. */
  async cancelTask(): Promise<void> {
    const status = this.call.task?.status;
    const tasks = this.ctx.client.tasks;
    if (!tasks || !this.rawTaskId || status === "completed" || status === "failed" || status === "cancelled")
      return;
    try {
      const task = await tasks.cancelTask(this.rawTaskId, { timeout: 2_000 });
      this.taskUpdate(task as unknown as Record<string, unknown>);
    } catch {
      // The tap already recorded cancelledAt when the request went out; the answer is a bonus.
    }
  }

  /**
   * The client gave up on the request (notifications/cancelled, tasks/cancel, a closed stream). Not when the
   * collector's own clock did: the contract reads `cancelledAt` first (`request.cancelled`, a caller's decision),
   * so that call is recorded by its times instead — no response, observed past the deadline or the idle window —
   * which the classifier reads as `request.deadline_exceeded` or `request.inactive`.
   */
  cancelled(at: number): void {
    if (this.clocks.expired) return;
    this.call.cancelledAt ??= iso(at);
  }

  /** Server task state, from `tasks/get` (polled) or `notifications/tasks/status` (pushed). */
  taskUpdate(task: Record<string, unknown>, polledAt?: number): void {
    const status = task.status as TaskStatus;
    if (typeof task.taskId !== "string" || !TASK_STATUSES.includes(status)) return;
    this.rawTaskId = task.taskId;
    const previous = this.call.task;
    const updatedMs = typeof task.lastUpdatedAt === "string" ? Date.parse(task.lastUpdatedAt) : Number.NaN;
    const updatedAt = Number.isNaN(updatedMs) ? (previous?.updatedAt ?? iso(Date.now())) : iso(updatedMs);
    this.call.task = { ...previous, id: taskIdForRecord(task.taskId), status, updatedAt };
    if (polledAt !== undefined) this.call.task.polledAt = iso(polledAt);
    if (!Number.isNaN(updatedMs)) this.clocks.activity(updatedMs);
    if (previous?.status !== status) this.snapshot(`task.${++this.changes}.${status}`);
  }

  snapshot(phase: string): CollectorRecord | undefined {
    if (this.emitted.has(phase)) return undefined;
    this.emitted.add(phase);
    // On the call path: a copy of the call, and the session and catalog layers shared with the previous records
    // while they are unchanged (frozen), instead of a deep clone of everything. Records kept for
    // `assertRetrySafe` then cost the agent's heap (and its garbage collector) little more than their call.
    const catalog = shared(this.ctx.catalog, this.ctx.catalog.snapshot());
    const record = buildRecord({
      chainId: this.chainId,
      phase,
      session: shared(this.ctx.session, this.ctx.session.snapshot()),
      catalog,
      observed: this.ctx.session.observed(catalog !== undefined),
      call: copyCall(this.call),
      labels: this.labels ?? this.ctx.labels,
      observedAt: Math.max(Date.now(), this.expiredAfter ?? 0),
      detached: true,
    });
    this.records.push(record);
    this.ctx.emit(record);
    return record;
  }

  finish(): void {
    this.clocks.stop();
    if (this.requestId !== undefined) this.ctx.tap.forgetResponse(this.requestId);
    for (const off of this.unsubscribe) off();
  }

  private responded(response: WireResponse): void {
    const at = iso(response.at);
    if (response.error) {
      const { code } = response.error;
      this.call.response = { at, kind: "error", error: { code, class: errorClass(code) } };
      return;
    }
    const result = response.result ?? {};
    const task = result.task as Record<string, unknown> | undefined;
    if (task && typeof task === "object" && typeof task.taskId === "string") {
      this.call.response = { at, kind: "result", resultType: "task" };
      this.taskUpdate(task);
      return;
    }
    this.call.response = { at, kind: "result", isError: result.isError === true };
  }

  private onNotification(method: string, params: Record<string, unknown>, at: number): void {
    if (method === "notifications/tasks/status" && this.rawTaskId && params.taskId === this.rawTaskId) {
      this.taskUpdate(params);
      return;
    }
    if (method !== "notifications/progress" || this.call.progressToken === undefined) return;
    if (params.progressToken !== this.call.progressToken || typeof params.progress !== "number") return;
    const entry: CallEvidence["progress"][number] = {
      at: iso(at),
      token: this.call.progressToken,
      progress: params.progress,
    };
    if (typeof params.total === "number") entry.total = params.total;
    this.call.progress.push(entry);
    // Only increasing progress is activity (contract rule 15); a stuck counter does not keep a call alive.
    if (params.progress <= this.lastValidProgress) return;
    this.lastValidProgress = params.progress;
    this.clocks.activity(at);
    if (!this.call.response && at - this.lastHeartbeat >= this.ctx.heartbeatMs) {
      this.lastHeartbeat = at;
      this.snapshot(`progress.${this.call.progress.length}`);
    }
  }

  private expire(reason: ExpiryReason): void {
    // Strictly past the limit (timestamps are whole ms; a timer may fire within the ms it was due).
    this.expiredAfter = this.clocks.dueAt(reason) + 1;
    this.abort.abort(
      reason === "deadline"
        ? new CallDeadlineError(this.chainId, this.call.deadlineMs)
        : new CallInactivityError(this.chainId, this.call.inactivityMs),
    );
  }
}

const lastLayer = new WeakMap<object, unknown>();

/** `fresh`, or the equal layer this source produced last time (frozen, so records can share it). */
function shared<T>(source: object, fresh: T): T {
  if (fresh === undefined) return fresh;
  const last = lastLayer.get(source) as T | undefined;
  if (last !== undefined && sameJson(last, fresh)) return last;
  lastLayer.set(source, deepFreeze(fresh));
  return fresh;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const keysA = Object.keys(a);
  if (Array.isArray(b) || keysA.length !== Object.keys(b).length) return false;
  for (const key of keysA)
    if (!sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  return true;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A copy of the live Call layer that shares nothing with it (every nested object of `CallEvidence` is copied). */
function copyCall(call: CallEvidence): CallEvidence {
  const copy: CallEvidence = { ...call, progress: call.progress.map((entry) => ({ ...entry })) };
  const { response, task, effect, outcome } = call;
  if (response) {
    copy.response = { ...response };
    if (response.error) copy.response.error = { ...response.error };
  }
  if (task) {
    copy.task = { ...task };
    if (task.result) copy.task.result = { ...task.result };
    if (task.error) copy.task.error = { ...task.error };
  }
  if (effect) copy.effect = { ...effect };
  if (outcome) copy.outcome = { ...outcome };
  return copy;
}

/** Task ids are the server's; one that is not a valid record Id is recorded by its hash prefix. */
function taskIdForRecord(taskId: string): string {
  try {
    return assertId(taskId, "task id");
  } catch {
    return `task-${createHash("sha256").update(taskId).digest("hex").slice(0, 32)}`;
  }
}
