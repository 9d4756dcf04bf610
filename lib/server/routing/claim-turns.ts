import { failureReason } from "../db/isolated-writes";

/**
 * Whose turn it is to claim deliveries in one process: one claim runs at a time. A due claim asked for while one runs
 * runs right after it; so does a claim of new deliveries by id, unless a due claim is coming, which takes them too.
 */
export class ClaimTurns {
  private running = false;
  private dueAgain = false;
  private freshAgain = false;

  constructor(
    private readonly claimDue: (now: Date) => Promise<number>,
    private readonly claimFresh: () => Promise<void>,
  ) {}

  get claiming(): boolean {
    return this.running;
  }

  /** A due claim now; while another runs, right after it (and 0 now). */
  async due(now: Date = new Date()): Promise<number> {
    if (this.running) {
      this.dueAgain = true;
      return 0;
    }
    return this.take(() => this.claimDue(now));
  }

  /** A due claim in the next turn of the event loop. */
  readonly scheduleDue = nextTurnOnce(() => this.due());

  /** Asked during a claim: a due claim once it ends. */
  dueAfterThis(): void {
    this.dueAgain = true;
  }

  /** A claim of new deliveries by id in the next turn, or after the claim that runs then. */
  readonly scheduleFresh = nextTurnOnce(() => this.fresh());

  private async fresh(): Promise<void> {
    if (this.running) {
      this.freshAgain = true;
      return;
    }
    await this.take(this.claimFresh);
  }

  private async take<T>(claim: () => Promise<T>): Promise<T> {
    this.running = true;
    try {
      return await claim();
    } finally {
      this.running = false;
      if (this.dueAgain) {
        this.dueAgain = false;
        this.freshAgain = false;
        this.scheduleDue();
      } else if (this.freshAgain) {
        this.freshAgain = false;
        this.scheduleFresh();
      }
    }
  }
}

/** `run` in the next turn of the event loop, once however often asked for until then; a failure is logged. */
function nextTurnOnce(run: () => Promise<unknown>): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      run().catch((error) => console.error("receipt: delivery claim failed:", failureReason(error)));
    });
  };
}
