import type { CollectorRecord } from "../record-types";
import { DeliveryLedger, MAX_REPORTED_IDS } from "./delivery-ledger";
import { type ExitFlushing, flushOnExit, stopFlushingOnExit } from "./exit-flush";
import { OverflowNotice } from "./overflow-notice";
import { guardRecord } from "./record-guard";
import { type Outcome, postBatch, type Refusal, readRefusal } from "./post-batch";
import { pause, within } from "./retry";
import { RetryRound } from "./retry-round";
import { type QueuedRecord, SendQueue } from "./send-queue";
import {
  type DeliveryCounts,
  DeliveryError,
  type DeliveryFailure,
  type DeliveryReport,
  type FlushOptions,
  type ReceiptSinkOptions,
  type RecordSink,
} from "./types";

export type { ReceiptSinkOptions } from "./types";

/** Records checked and serialised in one background turn. */
const PREPARE_SLICE = 200;
/** Under ingestion's 5 MiB limit, with room for the envelope. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Posts records to Receipt in the background, never on the agent's call path: `submit` only stages them, and
 * the next turn of the event loop checks them (contract validation and secret guard, `guardRecord`), serialises
 * them once and queues them in a bounded buffer. Stable recordIds make every retry safe (ingestion stores a
 * recordId once). Timers are unref'd and each POST has a deadline, so a Receipt that is down, slow or hanging
 * never keeps the agent's process alive, and `flush()` returns within `flushTimeoutMs`. A process that ends without
 * `close()` gets one flush when its event loop runs dry, and a line on stderr for what is still undelivered
 * (`flushOnExit`, ./exit-flush.ts).
 */
export class ReceiptSink implements RecordSink, ExitFlushing {
  private staged: CollectorRecord[] = [];
  private stagedTurn?: NodeJS.Immediate;
  private readonly queue: SendQueue;
  private readonly ledger = new DeliveryLedger();
  private readonly endpoint: string;
  private pumping = false;
  private closed = false;
  private timer?: NodeJS.Timeout;
  private inFlight?: AbortController;
  private readonly round: RetryRound;
  private readonly idleWaiters = new Set<() => void>();
  /** Records came since the last `flush()`: only those earn a flush at exit (a flush that failed is not repeated). */
  private submittedSinceFlush = false;
  /** Buffer drops, told to `onError` together (./overflow-notice.ts). */
  private readonly overflow = new OverflowNotice((failure) => this.options.onError?.(failure));

  constructor(private readonly options: ReceiptSinkOptions) {
    this.endpoint = new URL("api/v1/records", withSlash(options.baseUrl)).href;
    if (!options.ingestionKey) throw new TypeError("ingestionKey is required");
    this.queue = new SendQueue(this.maxRecords, Math.max(1, options.maxBufferBytes ?? 16 * 1024 * 1024));
    this.round = new RetryRound({
      baseDelayMs: options.baseDelayMs ?? 200,
      maxDelayMs: options.maxDelayMs ?? 5_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      maxAttempts: Math.max(1, options.maxAttempts ?? 5),
    });
  }

  submit(records: readonly CollectorRecord[]): void {
    if (this.options.flushOnExit !== false && !this.closed) flushOnExit(this);
    this.submittedSinceFlush = true;
    for (const record of records) this.staged.push(record);
    const excess = this.staged.length - this.maxRecords;
    if (excess > 0) {
      const dropped = this.staged.splice(0, excess);
      this.fail({
        kind: "overflow",
        recordIds: dropped.map((record) => record.recordId),
        count: dropped.length,
      });
    }
    this.stageTurn();
  }

  /**
   * Sends everything buffered, waiting at most `timeoutMs` (default `flushTimeoutMs`, 10 s). Resolves with the
   * report, or throws `DeliveryError` (with the same report) if any record was dropped, refused or is still
   * buffered; buffered records stay queued and are retried in the background.
   */
  async flush(options: FlushOptions = {}): Promise<DeliveryReport> {
    this.submittedSinceFlush = false;
    this.prepare();
    if (this.queue.length > 0) {
      this.ledger.collecting++;
      try {
        const idle = new Promise<void>((resolve) => this.idleWaiters.add(resolve));
        void this.pump();
        const finished = await within(idle, options.timeoutMs ?? this.options.flushTimeoutMs ?? 10_000);
        // Out of time: the POST on the wire is abandoned, so no socket outlives the flush.
        if (!finished) this.inFlight?.abort();
      } finally {
        this.ledger.collecting--;
      }
    }
    this.overflow.flush();
    const report = this.ledger.take(this.stillBuffered(), this.queue.length);
    if (report.failed.length > 0) throw new DeliveryError(report);
    return report;
  }

  /** The flush a process gets when it ends without one: whatever happens, the exit warning says what is left. */
  async flushAtExit(): Promise<void> {
    if (this.submittedSinceFlush) await this.flush().catch(() => undefined);
  }

  exitWarning(): string | undefined {
    const left = this.pending;
    if (left === 0) return undefined;
    const status = this.round.status;
    const why = status !== undefined ? `last answer HTTP ${status}` : "Receipt not reachable";
    return (
      `@receipt/collector: ${left} record${left === 1 ? "" : "s"} not delivered to ${this.endpoint} before the ` +
      `process exited (${why}); await close() or flush() before exiting`
    );
  }

  /** A last flush; afterwards nothing is sent in the background. */
  async close(options: FlushOptions = {}): Promise<DeliveryReport> {
    try {
      return await this.flush(options);
    } finally {
      this.closed = true;
      stopFlushingOnExit(this);
      this.inFlight?.abort();
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Records buffered (staged ones included). */
  get pending(): number {
    return this.queue.length + this.staged.length;
  }

  /** Running totals: delivered, masked, dropped by cause, and what is buffered now. */
  get counts(): DeliveryCounts {
    const { delivered, masked, dropped } = this.ledger.counts;
    return {
      delivered,
      masked,
      dropped: { ...dropped },
      pending: this.pending,
      pendingBytes: this.queue.bytes,
    };
  }

  private get batchSize(): number {
    return Math.min(1000, Math.max(1, this.options.batchSize ?? 100));
  }

  private get maxRecords(): number {
    return Math.max(1, this.options.maxBuffer ?? 10_000);
  }

  private stageTurn(): void {
    if (this.stagedTurn || this.staged.length === 0) return;
    this.stagedTurn = setImmediate(() => {
      this.stagedTurn = undefined;
      this.prepare(PREPARE_SLICE);
    });
    this.stagedTurn.unref();
  }

  /**
   * Guards, serialises and queues what was submitted (in the background `limit` records a turn, so a burst
   * never holds the agent's event loop for long); drops the oldest past the bounds.
   */
  private prepare(limit = Number.POSITIVE_INFINITY): void {
    if (this.stagedTurn) clearImmediate(this.stagedTurn);
    this.stagedTurn = undefined;
    const staged = this.staged.length <= limit ? this.staged : this.staged.slice(0, limit);
    this.staged = this.staged.length <= limit ? [] : this.staged.slice(limit);
    const overflow: QueuedRecord[] = [];
    for (const record of staged) {
      const guarded = guardRecord(record);
      if (!guarded.ok) {
        this.fail({ kind: "invalid", recordIds: [record.recordId], count: 1, issues: guarded.issues });
        continue;
      }
      if (guarded.masked.length > 0)
        this.ledger.mask(guarded.masked.map((field) => ({ recordId: record.recordId, ...field })));
      const json = guarded.json;
      overflow.push(...this.queue.push({ recordId: record.recordId, json, bytes: Buffer.byteLength(json) }));
    }
    if (overflow.length > 0) this.failDropped(overflow);
    this.stageTurn();
    this.kick();
  }

  /** Starts a send now (a full batch) or schedules one (the interval, or the end of a pause). */
  private kick(): void {
    if (this.pumping || this.closed || this.queue.length === 0 || this.timer) return;
    const full = this.queue.length >= this.batchSize;
    const interval = this.options.flushIntervalMs ?? 1000;
    if (!full && interval <= 0) return;
    const delay = Math.max(this.round.notBefore - Date.now(), full ? 0 : interval);
    if (delay <= 0) {
      void this.pump();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pump();
    }, delay);
    this.timer.unref();
  }

  /** One sender at a time, so batches keep their order and a record is never in two POSTs at once. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const wait = this.round.notBefore - Date.now();
        if (wait > 0) await pause(wait);
        const batch = this.queue.head(this.batchSize, MAX_BODY_BYTES);
        this.queue.inFlight = batch.length;
        const outcome = await this.post(batch);
        this.queue.inFlight = 0;
        if (!this.settle(batch, outcome)) break;
      }
    } finally {
      this.pumping = false;
      for (const resolve of this.idleWaiters) resolve();
      this.idleWaiters.clear();
      this.kick();
    }
  }

  /** Applies a POST's outcome to the queue; false ends the round (its attempts ran out). */
  private settle(batch: QueuedRecord[], outcome: Outcome): boolean {
    if (outcome.kind === "retry") {
      if (this.round.retry(outcome.status, outcome.retryAfter)) return true;
      this.options.onError?.({ ...this.unreachable(), attempts: this.round.attemptsMade });
      return false;
    }
    this.round.answered();
    this.queue.removeHead(batch.length);
    if (outcome.kind === "delivered") {
      this.ledger.deliver(batch.length, outcome.results);
      return true;
    }
    this.refused(batch, outcome);
    return true;
  }

  /** A 4xx: the records it rejects are failures, the others (when it named the faulty ones) go again at once. */
  private refused(batch: QueuedRecord[], outcome: Refusal): void {
    const { rejected, sendAgain } = readRefusal(batch, outcome);
    for (const failure of rejected) this.fail(failure);
    if (sendAgain.length === 0) return;
    const overflow = this.queue.unshift(sendAgain);
    if (overflow.length > 0) this.failDropped(overflow);
  }

  private async post(batch: QueuedRecord[]): Promise<Outcome> {
    const controller = new AbortController();
    this.inFlight = controller;
    try {
      return await postBatch(this.endpoint, batch, {
        ingestionKey: this.options.ingestionKey,
        fetch: this.options.fetch ?? fetch,
        signal: AbortSignal.any([
          controller.signal,
          AbortSignal.timeout(this.options.requestTimeoutMs ?? 5_000),
        ]),
      });
    } finally {
      if (this.inFlight === controller) this.inFlight = undefined;
    }
  }

  private unreachable(): DeliveryFailure {
    const failure: DeliveryFailure = {
      kind: "unreachable",
      recordIds: this.queue.ids(MAX_REPORTED_IDS),
      count: this.queue.length,
    };
    const status = this.round.status;
    if (status !== undefined) failure.status = status;
    return failure;
  }

  /** What a flush that ends with records still queued reports about them. */
  private stillBuffered(): DeliveryFailure | undefined {
    if (this.queue.length === 0) return undefined;
    return { ...this.unreachable(), attempts: this.round.attemptsMade };
  }

  private failDropped(dropped: QueuedRecord[]): void {
    this.fail({ kind: "overflow", recordIds: dropped.map((entry) => entry.recordId), count: dropped.length });
  }

  private fail(failure: DeliveryFailure): void {
    this.ledger.fail(failure);
    if (failure.kind !== "overflow") {
      this.options.onError?.(failure);
      return;
    }
    if (this.options.onError) this.overflow.add(failure);
  }
}

function withSlash(baseUrl: string | URL): string {
  const href = typeof baseUrl === "string" ? baseUrl : baseUrl.href;
  return href.endsWith("/") ? href : `${href}/`;
}
