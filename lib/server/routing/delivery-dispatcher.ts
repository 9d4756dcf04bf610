import { createHash } from "node:crypto";
import { releaseDeliveries } from "../db/routing-deliveries";
import { type ClaimedDelivery, claimDeliveriesById, claimDueDeliveries } from "../db/routing-delivery-claims";
import type { NewDelivery } from "../db/wake-notify";
import { pauseTargetEverywhere, takeSharedToken } from "../db/routing-rate-buckets";
import { metrics } from "../metrics/registry";
import { failureReason } from "../db/isolated-writes";
import { observeStage, observeWaits } from "./alert-stages";
import { AttemptRecorder } from "./attempt-recorder";
import { type Attempt, attemptDelivery } from "./delivery-attempt";
import { DeliveryLanes, mayHaveLeftSome, pickNewDeliveries } from "./delivery-lanes";
import { ClaimTurns } from "./claim-turns";
import { DueTimer } from "./due-timer";
import { type RateLimit, RateLimiter, rateLimitFor } from "./rate-limits";
import { setDeliveriesAside } from "./set-deliveries-aside";
import { type AlertSettings, alertSettings } from "./settings";

type Held = ClaimedDelivery & { rateLimit: RateLimit | null };

/**
 * The delivery engine of one process. `pump` claims what free capacity allows (per target and in all), starts those
 * sends and returns without waiting for them; a send that finishes frees its slot and pumps again. One claim runs at
 * a time (claim-turns.ts). Outcomes are written in batches (attempt-recorder.ts).
 */
export class DeliveryDispatcher {
  private readonly lanes: DeliveryLanes<Held>;
  private readonly limiter = new RateLimiter();
  private readonly recorder = new AttemptRecorder();
  /** Claimed and not yet recorded: never claimed again by this process, whatever the lease says. */
  private readonly held = new Set<bigint>();
  private readonly turns = new ClaimTurns(
    (now) => this.claim(now),
    () => this.claimNewById(new Date()),
  );
  /** The last claim may have left due deliveries behind (it took all it was allowed, or it did not look). */
  private backlogLeft = true;
  private wake: { at: number; timer: NodeJS.Timeout } | null = null;
  /** Deliveries this instance's commits inserted, waiting to be claimed by id (takeNew). */
  private fresh: NewDelivery[] = [];
  /** When this process's own retries fall due (a backoff it recorded): a claim then, not at the next safety tick. */
  private readonly retries = new DueTimer(() => this.turns.scheduleDue());

  constructor(private readonly settings: AlertSettings = alertSettings()) {
    this.lanes = new DeliveryLanes(settings.perTarget, settings.inFlight);
  }

  /** Claims and starts due deliveries; returns how many were claimed (0 while another claim runs: it runs next). */
  pump(now: Date = new Date()): Promise<number> {
    return this.turns.due(now);
  }

  /**
   * Deliveries a commit of this instance just inserted: claimed by id, which reads no backlog, as far as free
   * capacity and each target's share allow; the rest wait here and are claimed by id as sends free room. A pump (any
   * other wake-up, the tick) claims due rows instead, these too.
   */
  takeNew(deliveries: readonly NewDelivery[]): void {
    this.fresh.push(...deliveries);
    this.turns.scheduleFresh();
  }

  private async claimNewById(now: Date): Promise<void> {
    if (this.fresh.length === 0) return;
    const nowMs = Date.now();
    this.release(this.lanes.shed(nowMs), nowMs);
    const allowances = this.lanes.allowances(nowMs, (l) => this.limiter.available(l, nowMs));
    const { taken, waiting, elsewhere } = pickNewDeliveries(
      this.fresh,
      this.lanes.freeSlots(),
      allowances,
      this.settings.perTarget,
      (delivery) => this.lanes.isPaused(delivery, nowMs),
    );
    this.fresh = waiting;
    if (elsewhere) {
      // Rate-limited kinds and paused targets: the due claim counts tokens and pauses.
      this.backlogLeft = true;
      this.turns.dueAfterThis();
    }
    if (taken.length === 0) return;
    const claimStarted = performance.now();
    const claimed = await claimDeliveriesById(
      taken,
      now,
      this.settings.timeoutMs + this.settings.leaseMarginMs,
    ).catch((error) => {
      // The due claim, right after, claims them or sets aside what cannot be claimed.
      console.error("receipt: delivery claim by id failed:", failureReason(error));
      this.turns.dueAfterThis();
      return [];
    });
    if (claimed.length > 0) {
      observeStage("claim", (performance.now() - claimStarted) / 1000);
      observeWaits(
        "delivery_wait",
        claimed.map((delivery) => delivery.createdAt),
      );
    }
    this.hold(claimed);
    this.startReady();
    // Claimed elsewhere first, or waiting for an older delivery of its group: the due claim finds what is due.
    if (claimed.length < taken.length) this.backlogLeft = true;
  }

  /** Nothing claimed, sending or waiting to be recorded (the tests wait for this). */
  get idle(): boolean {
    return this.held.size === 0 && !this.turns.claiming && this.recorder.pending === 0;
  }

  private async claim(now: Date): Promise<number> {
    const nowMs = Date.now();
    this.fresh = []; // due rows, so this claim finds them
    this.release(this.lanes.shed(nowMs), nowMs);
    const limit = this.lanes.freeSlots();
    if (limit === 0) {
      this.backlogLeft = true;
      return 0;
    }
    const allowances = this.lanes.allowances(nowMs, (l) => this.limiter.available(l, nowMs));
    const claimStarted = performance.now();
    const { claimed, failures } = await claimDueDeliveries(
      now,
      this.settings.timeoutMs + this.settings.leaseMarginMs,
      limit,
      {
        perTarget: this.settings.perTarget,
        allowances,
        exclude: [...this.held],
      },
    );
    this.backlogLeft =
      claimed.length >= limit || mayHaveLeftSome(claimed, allowances, this.settings.perTarget);
    if (claimed.length > 0) {
      observeStage("claim", (performance.now() - claimStarted) / 1000);
      // A retry's wait includes its backoff: only first attempts say how long a new delivery waited for a claim.
      observeWaits(
        "delivery_wait",
        claimed.filter((delivery) => delivery.attempts === 1).map((delivery) => delivery.createdAt),
      );
    }
    this.hold(claimed);
    this.startReady();
    await setDeliveriesAside(failures.map(({ item, reason }) => ({ key: String(item), reason })));
    return claimed.length;
  }

  /** Claimed deliveries join their targets' lanes. */
  private hold(claimed: readonly ClaimedDelivery[]): void {
    for (const delivery of claimed) {
      this.held.add(delivery.id);
      this.lanes.add({
        ...delivery,
        rateLimit: rateLimitFor(delivery.targetType, delivery.url, delivery.body),
      });
    }
  }

  /** Starts what may start now, and wakes up when a waiting delivery's pause or rate limit ends. */
  private startReady(): void {
    const nowMs = Date.now();
    for (const delivery of this.lanes.startable(nowMs, (l) => this.limiter.take(l, nowMs)))
      void this.send(delivery);
    const at = this.lanes.nextStartAt(nowMs, (l) => this.limiter.waitMs(l, nowMs));
    if (at === null || (this.wake && this.wake.at <= at)) return;
    if (this.wake) clearTimeout(this.wake.timer);
    const timer = setTimeout(
      () => {
        this.wake = null;
        this.startReady();
      },
      Math.max(1, at - nowMs),
    );
    timer.unref();
    this.wake = { at, timer };
  }

  private async send(delivery: Held): Promise<void> {
    if (delivery.rateLimit && !(await this.sharedTokenTaken(delivery, delivery.rateLimit))) return;
    let attempt: Attempt;
    try {
      attempt = await attemptDelivery(delivery, this.settings);
    } catch (error) {
      this.lanes.finished(delivery, Date.now());
      this.held.delete(delivery.id);
      await setDeliveriesAside([{ key: String(delivery.id), reason: failureReason(error) }]).catch(() => {});
      this.afterSend();
      return;
    }
    this.lanes.finished(delivery, Date.now());
    const { at, result, decision } = attempt;
    const answered = performance.now();
    if (decision.pauseTargetUntilMs !== null) this.pauseTarget(delivery, decision.pauseTargetUntilMs);
    this.recorder.add({
      id: delivery.id,
      at,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: result.error,
      status: decision.status,
      nextAttemptAt: new Date(decision.nextAttemptMs),
      onRecorded: (written, unblocks) => {
        if (written) observeStage("record", (performance.now() - answered) / 1000);
        this.held.delete(delivery.id);
        if (written && decision.status === "pending") this.retries.add(decision.nextAttemptMs);
        if (written)
          metrics().deliveries.inc({
            outcome: decision.status === "pending" ? "failed" : decision.status,
            receiver_kind: delivery.targetType,
          });
        // A group's next notification to this target waited for this one: claimed now.
        if (unblocks) this.turns.scheduleDue();
        else this.refill();
      },
    });
    this.afterSend();
  }

  /**
   * The rate shared by every instance (this one's own bucket let the send start): without a token the delivery goes
   * back to the database, due when one will be there. A database that cannot answer leaves this instance's own limit.
   */
  private async sharedTokenTaken(delivery: Held, limit: RateLimit): Promise<boolean> {
    const keyHash = createHash("sha256").update(limit.key).digest("base64url");
    const waitMs = await takeSharedToken(keyHash, limit.perSecond, limit.burst).catch(() => 0);
    if (waitMs === 0) return true;
    const nowMs = Date.now();
    this.lanes.finished(delivery, nowMs);
    this.release([delivery], nowMs + waitMs);
    this.retries.add(nowMs + waitMs);
    this.afterSend();
    return false;
  }

  private afterSend(): void {
    this.startReady();
    this.refill();
  }

  /**
   * A claim after a send or a record, when a target's queue runs low (DeliveryLanes.needsRefill) and the last claim
   * may have left due deliveries behind. When it took less than it was allowed, nothing else was due then; what falls
   * due since comes with a claim of its own (a flush's wake-up, a retry's timer, a group's next delivery unblocked by
   * a record, deliveries handed back).
   */
  private refill(): void {
    if (!this.lanes.needsRefill()) return;
    if (this.fresh.length > 0) this.turns.scheduleFresh();
    else if (this.backlogLeft) this.turns.scheduleDue();
  }

  /** The target asked to be left alone: what waits for it goes back to the database, due when the pause ends. */
  private pauseTarget(delivery: Held, untilMs: number): void {
    this.release(this.lanes.pause(delivery, untilMs), untilMs);
    // Every other instance's too: their claims skip the target until the pause ends.
    pauseTargetEverywhere(delivery.channel, delivery.targetIndex, new Date(untilMs)).catch((error) =>
      console.error("receipt: sharing a target's pause failed:", failureReason(error)),
    );
  }

  /** Claimed deliveries handed back unsent, due again at `atMs`. */
  private release(released: Held[], atMs: number): void {
    if (released.length === 0) return;
    this.backlogLeft = true;
    const ids = released.map((d) => d.id);
    releaseDeliveries(ids, new Date(atMs))
      .catch((error) => console.error("receipt: releasing paused deliveries failed:", failureReason(error)))
      .finally(() => {
        for (const id of ids) this.held.delete(id);
        // Back in the database and no longer excluded: the next refill claims them.
        this.backlogLeft = true;
      });
  }
}
