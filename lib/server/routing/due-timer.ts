/**
 * One timer for many due times (the delivery engine's retries): `onDue` runs once the earliest passes, then the timer
 * is armed for the next. Times already passed are dropped together, so a burst of equal backoffs costs one call.
 */
export class DueTimer {
  private readonly due: number[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly onDue: () => void) {}

  /** Something falls due at `atMs`. */
  add(atMs: number): void {
    const index = this.due.findIndex((due) => due > atMs);
    this.due.splice(index === -1 ? this.due.length : index, 0, atMs);
    if (index === 0 || this.due.length === 1) this.arm();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const next = this.due[0];
    if (next === undefined) return;
    this.timer = setTimeout(
      () => {
        const nowMs = Date.now();
        while ((this.due[0] ?? Number.POSITIVE_INFINITY) <= nowMs) this.due.shift();
        this.arm();
        this.onDue();
      },
      Math.max(1, next - Date.now()),
    );
    this.timer.unref();
  }
}
