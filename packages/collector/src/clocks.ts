/**
 * The call's two clocks, enforced by the collector itself: an absolute deadline that never
 * resets, and an inactivity window that resets only on valid activity (increasing progress,
 * a newer task update). The SDK's `maxTotalTimeout` is only checked when progress arrives,
 * so a silent server would never hit it; these timers fire on their own.
 */
export type ExpiryReason = "deadline" | "inactivity";

export class CallClocks {
  private deadlineTimer?: NodeJS.Timeout;
  private inactivityTimer?: NodeJS.Timeout;
  private lastActivity: number;
  expired?: ExpiryReason;

  constructor(
    private readonly startedAt: number,
    private readonly deadlineMs: number,
    private readonly inactivityMs: number,
    private readonly onExpire: (reason: ExpiryReason) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.lastActivity = startedAt;
    this.deadlineTimer = setTimeout(
      () => this.expire("deadline"),
      Math.max(0, startedAt + deadlineMs - now()),
    );
    this.armInactivity();
  }

  /** Valid activity at `at` (ms): moves the inactivity window, never the deadline. */
  activity(at: number): void {
    if (this.expired || at <= this.lastActivity) return;
    this.lastActivity = at;
    this.armInactivity();
  }

  /** When `reason`'s clock ran (or runs) out, in ms. */
  dueAt(reason: ExpiryReason): number {
    return reason === "deadline" ? this.startedAt + this.deadlineMs : this.lastActivity + this.inactivityMs;
  }

  stop(): void {
    clearTimeout(this.deadlineTimer);
    clearTimeout(this.inactivityTimer);
  }

  private armInactivity(): void {
    clearTimeout(this.inactivityTimer);
    // Inactivity past the deadline is moot: the deadline fires first.
    if (this.inactivityMs >= this.deadlineMs) return;
    const dueIn = this.lastActivity + this.inactivityMs - this.now();
    this.inactivityTimer = setTimeout(() => this.expire("inactivity"), Math.max(0, dueIn));
  }

  private expire(reason: ExpiryReason): void {
    if (this.expired) return;
    this.expired = reason;
    this.stop();
    this.onExpire(reason);
  }
}
