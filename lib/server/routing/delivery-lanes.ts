// In-process lanes of the delivery engine, one per target (channel + target index). Pure bookkeeping: which claimed
// deliveries may start now, how many more each target may be given, when a waiting one can start. Each lane has its
// own concurrency cap and may be paused (a receiver's Retry-After), so one target's backlog or hang never holds
// another's deliveries; a global cap bounds what one instance holds at once.
import type { NewDelivery } from "../db/wake-notify";
import type { RateLimit } from "./rate-limits";

// A target that answers quickly may be given more than its in-flight cap, to wait in its queue: its sends follow one
// another without a claim per slot. A target is quick while its last answer took less than QUICK_MS and none of its
// sends has been running longer; once it is not, what waits in its queue goes back to the database (`shed`), so a
// target that starts hanging holds only its in-flight sends and no claim's lease runs out in a queue.
export const QUEUE_DEPTH = 8;
export const QUICK_MS = 250;

export type LaneItem = { channel: string; targetIndex: number; rateLimit: RateLimit | null };

/** How many more deliveries the claim may give one target (targets not listed get the per-target cap). */
export type LaneAllowance = { channel: string; targetIndex: number; free: number };

type Lane<T> = {
  channel: string;
  targetIndex: number;
  inFlight: number;
  queue: T[];
  pausedUntil: number;
  /** Remembered after the queue empties, so the lane's allowance keeps counting its tokens. */
  limit: RateLimit | null;
  /** When each send in flight started. */
  started: Map<T, number>;
  lastLatencyMs: number | null;
};

export const laneKey = (item: Pick<LaneItem, "channel" | "targetIndex">): string =>
  `${item.targetIndex} ${item.channel}`;

export class DeliveryLanes<T extends LaneItem> {
  private readonly lanes = new Map<string, Lane<T>>();
  private held = 0;

  constructor(
    readonly perTarget: number,
    readonly inFlightCap: number,
  ) {}

  private lane(item: Pick<LaneItem, "channel" | "targetIndex">): Lane<T> {
    const key = laneKey(item);
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = {
        channel: item.channel,
        targetIndex: item.targetIndex,
        inFlight: 0,
        queue: [],
        pausedUntil: 0,
        limit: null,
        started: new Map(),
        lastLatencyMs: null,
      };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /** Deliveries held (sending or waiting to start). */
  get size(): number {
    return this.held;
  }

  /** How many more deliveries this instance may claim. */
  freeSlots(): number {
    return Math.max(0, this.inFlightCap - this.held);
  }

  /**
   * The claim's per-target allowances: a paused target gets none; otherwise its cap minus what it holds, and no
   * more than its rate limit's tokens (`tokens` of a lane's limit; unlimited targets report Infinity).
   */
  allowances(nowMs: number, tokens: (limit: RateLimit | null) => number): LaneAllowance[] {
    const out: LaneAllowance[] = [];
    for (const lane of this.lanes.values()) {
      const held = lane.inFlight + lane.queue.length;
      const byCap = (this.isQuick(lane, nowMs) ? this.perTarget * QUEUE_DEPTH : this.perTarget) - held;
      const byRate = tokens(lane.limit) - lane.queue.length;
      const free = lane.pausedUntil > nowMs ? 0 : Math.max(0, Math.min(byCap, byRate));
      if (free !== this.perTarget) out.push({ channel: lane.channel, targetIndex: lane.targetIndex, free });
    }
    return out;
  }

  private isQuick(lane: Lane<T>, nowMs: number): boolean {
    if (lane.lastLatencyMs === null || lane.lastLatencyMs >= QUICK_MS || lane.pausedUntil > nowMs)
      return false;
    for (const startedAt of lane.started.values()) if (nowMs - startedAt >= QUICK_MS) return false;
    return true;
  }

  /** Whether the target's receiver asked for a pause that has not ended. */
  isPaused(item: Pick<LaneItem, "channel" | "targetIndex">, nowMs: number): boolean {
    return (this.lanes.get(laneKey(item))?.pausedUntil ?? 0) > nowMs;
  }

  /** Takes back what waits beyond the cap in the queues of targets that are no longer quick (the caller releases it). */
  shed(nowMs: number): T[] {
    const out: T[] = [];
    for (const lane of this.lanes.values()) {
      const waiting = lane.queue.length - Math.max(0, this.perTarget - lane.inFlight);
      if (waiting <= 0 || this.isQuick(lane, nowMs)) continue;
      out.push(...lane.queue.splice(lane.queue.length - waiting));
    }
    this.held -= out.length;
    return out;
  }

  /**
   * Whether a claim is worth making after a send finished: some target with work held is down to its last cap's worth
   * of queue, or no target holds any (a claim then finds whatever is due). A quick target's queue is refilled in
   * batches rather than a slot at a time: each claim is a statement that reads the target's whole due backlog. New
   * work (a flush's wake-up, a retry falling due, the tick) is claimed at once whatever this says.
   */
  needsRefill(): boolean {
    let busy = false;
    for (const lane of this.lanes.values()) {
      if (lane.inFlight + lane.queue.length === 0) continue;
      busy = true;
      if (lane.queue.length <= this.perTarget) return true;
    }
    return !busy;
  }

  /** A claimed delivery joins its target's queue. */
  add(item: T): void {
    const lane = this.lane(item);
    if (item.rateLimit) lane.limit = item.rateLimit;
    lane.queue.push(item);
    this.held++;
  }

  /** The deliveries that start now (FIFO per target): the lane is not paused, has a free slot and a token. */
  startable(nowMs: number, takeToken: (limit: RateLimit | null) => boolean): T[] {
    const out: T[] = [];
    for (const lane of this.lanes.values()) {
      if (lane.pausedUntil > nowMs) continue;
      while (lane.queue.length > 0 && lane.inFlight < this.perTarget) {
        const next = lane.queue[0] as T;
        if (!takeToken(next.rateLimit)) break;
        lane.queue.shift();
        lane.inFlight++;
        lane.started.set(next, nowMs);
        out.push(next);
      }
    }
    return out;
  }

  /** A send finished: its slot is free. */
  finished(item: T, nowMs: number): void {
    const lane = this.lane(item);
    const startedAt = lane.started.get(item);
    lane.started.delete(item);
    if (startedAt !== undefined) lane.lastLatencyMs = nowMs - startedAt;
    lane.inFlight = Math.max(0, lane.inFlight - 1);
    this.held = Math.max(0, this.held - 1);
  }

  /** Pauses a target until `untilMs` and hands back what waited in its queue (the caller releases it). */
  pause(item: Pick<LaneItem, "channel" | "targetIndex">, untilMs: number): T[] {
    const lane = this.lane(item);
    lane.pausedUntil = Math.max(lane.pausedUntil, untilMs);
    const released = lane.queue.splice(0);
    this.held -= released.length;
    return released;
  }

  /** Until when a target is paused (0 when it is not). */
  pausedUntil(item: Pick<LaneItem, "channel" | "targetIndex">): number {
    return this.lanes.get(laneKey(item))?.pausedUntil ?? 0;
  }

  /** When a queued delivery may next start (a pause ending, a token refilled), or null when none waits. */
  nextStartAt(nowMs: number, tokenWaitMs: (limit: RateLimit | null) => number): number | null {
    let earliest: number | null = null;
    for (const lane of this.lanes.values()) {
      const next = lane.queue[0];
      if (!next || lane.inFlight >= this.perTarget) continue;
      const at = Math.max(lane.pausedUntil, nowMs + tokenWaitMs(next.rateLimit));
      earliest = earliest === null ? at : Math.min(earliest, at);
    }
    return earliest;
  }
}

/**
 * Whether the claim may have left due deliveries behind: a target it gave nothing (saturated, paused, out of tokens:
 * its backlog was not looked at), or one that got all it was allowed.
 */
export function mayHaveLeftSome(
  claimed: readonly Pick<LaneItem, "channel" | "targetIndex">[],
  allowances: readonly LaneAllowance[],
  perTarget: number,
): boolean {
  if (allowances.some((allowance) => allowance.free === 0)) return true;
  const taken = new Map<string, number>();
  for (const delivery of claimed) taken.set(laneKey(delivery), (taken.get(laneKey(delivery)) ?? 0) + 1);
  for (const [key, count] of taken) {
    const allowance = allowances.find((a) => laneKey(a) === key)?.free ?? perTarget;
    if (count >= allowance) return true;
  }
  return false;
}

/**
 * What the claim by id may take of the new deliveries now, in order: each target's allowance (the per-target cap for
 * a target not listed) and the instance's free slots. The rest wait for room (`waiting`), except deliveries the due
 * claim must take (`elsewhere`): rate-limited kinds (Slack, PagerDuty: it counts their tokens) and targets that get
 * nothing now for another reason than room (a pause: it reads the pauses).
 */
export function pickNewDeliveries<T extends NewDelivery>(
  fresh: readonly T[],
  slots: number,
  allowances: readonly LaneAllowance[],
  perTarget: number,
  isPaused: (item: T) => boolean,
): { taken: bigint[]; waiting: T[]; elsewhere: boolean } {
  const shares = new Map(allowances.map((allowance) => [laneKey(allowance), allowance.free]));
  const taken: bigint[] = [];
  const waiting: T[] = [];
  let elsewhere = false;
  let free = slots;
  for (const delivery of fresh) {
    if (delivery.targetType !== "webhook" || isPaused(delivery)) {
      elsewhere = true;
      continue;
    }
    const key = laneKey(delivery);
    const share = shares.get(key) ?? perTarget;
    if (free === 0 || share <= 0) {
      waiting.push(delivery);
      continue;
    }
    shares.set(key, share - 1);
    free--;
    taken.push(delivery.id);
  }
  return { taken, waiting, elsewhere };
}
