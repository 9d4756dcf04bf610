import { MAX_REPORTED_IDS } from "./delivery-ledger";
import type { DeliveryFailure } from "./types";

/**
 * Records a full buffer dropped, told to `onError` together: while Receipt is down a buffer drops a record a call,
 * and a callback a call (15,002 for 20,000 calls) says nothing more than one a second with the sum does.
 */
export class OverflowNotice {
  private untold?: { recordIds: string[]; count: number; timer: NodeJS.Timeout };

  constructor(
    private readonly tell: (failure: DeliveryFailure) => void,
    private readonly everyMs = 1_000,
  ) {}

  add(failure: DeliveryFailure): void {
    const untold = this.untold ?? {
      recordIds: [],
      count: 0,
      timer: setTimeout(() => this.flush(), this.everyMs).unref(),
    };
    const room = MAX_REPORTED_IDS - untold.recordIds.length;
    if (room > 0) untold.recordIds.push(...failure.recordIds.slice(0, room));
    untold.count += failure.count;
    this.untold = untold;
  }

  /** Tells what is waiting now (a flush reports it with everything else). */
  flush(): void {
    const untold = this.untold;
    if (!untold) return;
    clearTimeout(untold.timer);
    this.untold = undefined;
    this.tell({ kind: "overflow", recordIds: untold.recordIds, count: untold.count });
  }
}
