import type { CollectorRecord } from "../record-types";
import {
  type DeliveryFailure,
  DeliveryError,
  type DeliveryReport,
  type DeliveryResult,
  type RecordSink,
} from "./types";

export type ReceiptSinkOptions = {
  /** The Receipt app, e.g. "http://127.0.0.1:3000"; records go to `{baseUrl}/api/v1/records`. */
  baseUrl: string | URL;
  ingestionKey: string;
  /** Records per POST (ingestion accepts 1–1000). */
  batchSize?: number;
  /** Records held in memory at most; beyond it new records are refused and reported. */
  maxBuffer?: number;
  /** Attempts per batch on network errors, 5xx and 429 (4xx are final). */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Background flush period; 0 = only when a batch is full or `flush()` is called. */
  flushIntervalMs?: number;
  requestTimeoutMs?: number;
  fetch?: typeof fetch;
  /** Called for every failure of a background flush (they are also returned by the next `flush()`). */
  onError?: (failure: DeliveryFailure) => void;
};

/**
 * Posts records to Receipt in batches. Stable recordIds make every retry safe (ingestion stores
 * a recordId once), so a batch is retried with exponential backoff on network errors and 5xx;
 * a 4xx is final and reported. Nothing is swallowed: an overflow or a lost batch is passed to
 * `onError` and returned (thrown, as `DeliveryError`) by the next `flush()`.
 */
export class ReceiptSink implements RecordSink {
  private readonly buffer: CollectorRecord[] = [];
  private unreported: DeliveryFailure[] = [];
  private flushing: Promise<DeliveryReport> = Promise.resolve(emptyReport());
  private timer?: NodeJS.Timeout;
  private readonly endpoint: string;

  constructor(private readonly options: ReceiptSinkOptions) {
    this.endpoint = new URL("api/v1/records", withSlash(options.baseUrl)).href;
    if (!options.ingestionKey) throw new TypeError("ingestionKey is required");
  }

  submit(records: readonly CollectorRecord[]): void {
    const room = (this.options.maxBuffer ?? 10_000) - this.buffer.length;
    this.buffer.push(...records.slice(0, Math.max(0, room)));
    const refused = records.slice(Math.max(0, room));
    if (refused.length > 0)
      this.fail({ kind: "overflow", recordIds: refused.map((record) => record.recordId) });
    if (this.buffer.length >= this.batchSize) void this.background();
    else this.schedule();
  }

  /** Delivers everything buffered; resolves with the report, or throws `DeliveryError` if anything was lost. */
  async flush(): Promise<DeliveryReport> {
    const report = await this.drain();
    const failed = [...this.unreported, ...report.failed];
    this.unreported = [];
    const merged = { ...report, failed };
    if (failed.length > 0) throw new DeliveryError(merged);
    return merged;
  }

  async close(): Promise<DeliveryReport> {
    clearTimeout(this.timer);
    this.timer = undefined;
    return this.flush();
  }

  get pending(): number {
    return this.buffer.length;
  }

  private get batchSize(): number {
    return Math.min(1000, Math.max(1, this.options.batchSize ?? 100));
  }

  private schedule(): void {
    const interval = this.options.flushIntervalMs ?? 1000;
    if (interval <= 0 || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.background();
    }, interval);
    this.timer.unref();
  }

  private async background(): Promise<void> {
    const report = await this.drain();
    for (const failure of report.failed) this.fail(failure);
  }

  private fail(failure: DeliveryFailure): void {
    this.unreported.push(failure);
    this.options.onError?.(failure);
  }

  /** One drain at a time, so batches keep their order and a record is never in two POSTs at once. */
  private drain(): Promise<DeliveryReport> {
    this.flushing = this.flushing.then(() => this.drainNow());
    return this.flushing;
  }

  private async drainNow(): Promise<DeliveryReport> {
    const report = emptyReport();
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.batchSize);
      const outcome = await this.post(batch);
      if (outcome.ok) {
        report.delivered += batch.length;
        report.results.push(...outcome.results);
        continue;
      }
      report.failed.push(outcome.failure);
      if (outcome.failure.kind === "unreachable") {
        // Keep the records for the next flush (same recordIds: no duplicates), within the bound.
        const room = (this.options.maxBuffer ?? 10_000) - this.buffer.length;
        this.buffer.unshift(...batch.slice(0, Math.max(0, room)));
        break;
      }
    }
    return report;
  }

  private async post(
    batch: CollectorRecord[],
  ): Promise<{ ok: true; results: DeliveryResult[] } | { ok: false; failure: DeliveryFailure }> {
    const recordIds = batch.map((record) => record.recordId);
    const maxAttempts = Math.max(1, this.options.maxAttempts ?? 5);
    const body = JSON.stringify({ records: batch });
    let status: number | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      let retryAfterMs: number | undefined;
      try {
        const response = await (this.options.fetch ?? fetch)(this.endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${this.options.ingestionKey}`,
          },
          body,
          signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 10_000),
        });
        status = response.status;
        const payload = (await response.json().catch(() => undefined)) as
          | { results?: DeliveryResult[]; error?: { code?: string } }
          | undefined;
        if (response.ok) return { ok: true, results: Array.isArray(payload?.results) ? payload.results : [] };
        if (status < 500 && status !== 429 && status !== 408) {
          const code = typeof payload?.error?.code === "string" ? payload.error.code : undefined;
          return { ok: false, failure: { kind: "rejected", recordIds, status, code, attempts: attempt } };
        }
        retryAfterMs = retryAfter(response.headers.get("retry-after"));
      } catch {
        status = undefined; // network error or timeout: retry
      }
      const maxDelay = this.options.maxDelayMs ?? 5_000;
      if (attempt < maxAttempts) await sleep(Math.min(retryAfterMs ?? this.backoff(attempt), maxDelay));
    }
    return { ok: false, failure: { kind: "unreachable", recordIds, status, attempts: maxAttempts } };
  }

  private backoff(attempt: number): number {
    const base = this.options.baseDelayMs ?? 200;
    const capped = Math.min(this.options.maxDelayMs ?? 5_000, base * 2 ** (attempt - 1));
    return capped / 2 + Math.random() * (capped / 2); // jitter: many agents must not retry in step
  }
}

function retryAfter(header: string | null): number | undefined {
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function withSlash(baseUrl: string | URL): string {
  const href = typeof baseUrl === "string" ? baseUrl : baseUrl.href;
  return href.endsWith("/") ? href : `${href}/`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function emptyReport(): DeliveryReport {
  return { delivered: 0, failed: [], results: [] };
}
