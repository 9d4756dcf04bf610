import { type AttemptOutcome, recordAttempts } from "../db/routing-deliveries";
import { setDeliveriesAside } from "./set-deliveries-aside";
import { failureReason } from "../db/isolated-writes";

// Attempt outcomes are written in batches: the first outcome opens a short window, and everything that finishes in
// it (or up to BATCH outcomes) is written with one insert and one update. One write at a time, so a burst of sends
// costs a few statements, not two per delivery.
const WINDOW_MS = 20;
const BATCH = 500;

/**
 * An outcome to write; `onRecorded` is told whether it was written (false: set aside, or the database failed), and
 * whether a later delivery of its group may now be claimed (true when not known).
 */
export type Recorded = AttemptOutcome & {
  id: bigint;
  onRecorded: (written: boolean, unblocks: boolean) => void;
};

export class AttemptRecorder {
  private buffer: Recorded[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;

  add(outcome: Recorded): void {
    this.buffer.push(outcome);
    if (this.buffer.length >= BATCH) this.flushSoon(0);
    else this.flushSoon(WINDOW_MS);
  }

  /** Outcomes not yet written. */
  get pending(): number {
    return this.buffer.length + (this.writing ? 1 : 0);
  }

  private flushSoon(delayMs: number): void {
    if (this.writing) return; // the running write takes the buffer again when it ends
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.writing = this.writeAll().finally(() => {
        this.writing = null;
        if (this.buffer.length > 0) this.flushSoon(0);
      });
    }, delayMs);
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, BATCH);
      const notWritten = new Set<bigint>();
      let unblocking: ReadonlySet<bigint> | null = null;
      try {
        const recorded = await recordAttempts(batch);
        unblocking = recorded.unblocking;
        const { failures } = recorded;
        for (const failure of failures) notWritten.add(failure.item);
        await setDeliveriesAside(failures.map(({ item, reason }) => ({ key: String(item), reason })));
      } catch (error) {
        // PostgreSQL is unreachable: the deliveries keep their lease and are re-sent (same delivery id) once it ends.
        console.error("receipt: recording delivery attempts failed:", failureReason(error));
        for (const outcome of batch) notWritten.add(outcome.id);
      }
      for (const outcome of batch)
        outcome.onRecorded(!notWritten.has(outcome.id), unblocking?.has(outcome.id) ?? true);
    }
  }
}
