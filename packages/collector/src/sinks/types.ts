import type { CollectorRecord } from "../record-types";

/** Where records go. `submit` never blocks the agent; `flush` says what happened to them. */
export interface RecordSink {
  submit(records: readonly CollectorRecord[]): void;
  flush(options?: FlushOptions): Promise<DeliveryReport>;
  close?(options?: FlushOptions): Promise<DeliveryReport>;
}

export type FlushOptions = {
  /** Longest a flush waits for delivery before it reports what is still buffered (default: the sink's). */
  timeoutMs?: number;
};

/** One problem the sink or the server found in a record: a JSON path in the record and a stable code, no value. */
export type RecordIssue = { path: string; code: string };

export type DeliveryFailure = {
  /**
   * overflow: dropped (oldest first) to keep the buffer within its bound; invalid: dropped before sending, the
   * contract's validation refused it even with the offending fields masked or removed; rejected: the server refused
   * it (a 4xx, never retried); unreachable: still buffered when the flush gave up (retries ran out, or its time).
   */
  kind: "overflow" | "invalid" | "rejected" | "unreachable";
  /** Records concerned; at most `MAX_REPORTED_IDS` are named per report, `count` is always exact. */
  recordIds: string[];
  count: number;
  status?: number;
  /** The server's error code (e.g. invalid_records, record_conflict) — never a request header. */
  code?: string;
  /** Where the record was at fault (invalid, or rejected by the server with record indexes). */
  issues?: RecordIssue[];
  attempts?: number;
};

/**
 * A field changed before a record was sent (the record still went): masked as a credential (`secret_masked`,
 * `secret_key_removed`), repaired (`control_replaced`, `unstorable_replaced`, `truncated`), or removed because the
 * schema refused it (the schema's code).
 */
export type MaskedField = { recordId: string; path: string; code: string };

export type DeliveryResult = { recordId: string; chainId?: string; state?: string; duplicate?: boolean };

/** Running totals since the sink was made; `pending` is what is buffered now. */
export type DeliveryCounts = {
  delivered: number;
  masked: number;
  dropped: { overflow: number; invalid: number; rejected: number };
  pending: number;
  pendingBytes: number;
};

export type DeliveryReport = {
  delivered: number;
  failed: DeliveryFailure[];
  /** Per-record answers from the server for the batches delivered while this flush waited. */
  results: DeliveryResult[];
  /** Fields masked, repaired or removed before sending (the record went), since the last flush. */
  masked: MaskedField[];
  /** Records still buffered when the flush returned (they are retried in the background). */
  pending: number;
};

/** `new ReceiptSink(options)`: where to post, the buffer's bounds, and how long to wait and retry. */
export type ReceiptSinkOptions = {
  /** The Receipt app, e.g. "http://127.0.0.1:3000"; records go to `{baseUrl}/api/v1/records`. */
  baseUrl: string | URL;
  ingestionKey: string;
  /** Records per POST (ingestion accepts 1–1000); a POST also stays under 4 MiB. */
  batchSize?: number;
  /** Records buffered at most (default 10,000); past it the oldest are dropped, counted and reported. */
  maxBuffer?: number;
  /** Serialised bytes buffered at most (default 16 MiB); the same rule. */
  maxBufferBytes?: number;
  /** Attempts per round on network errors, 408/425/429 and 5xx (default 5); any other 4xx is final. */
  maxAttempts?: number;
  baseDelayMs?: number;
  /** Longest backoff step, and the pause after a round whose attempts ran out (default 5 s). */
  maxDelayMs?: number;
  /** A server's `Retry-After` is followed up to this long (default 60 s). */
  maxRetryAfterMs?: number;
  /** Background send period; 0 = only when a batch is full or `flush()` is called. */
  flushIntervalMs?: number;
  /** Longest one POST may take, answer included (default 5 s). */
  requestTimeoutMs?: number;
  /** Longest `flush()` waits before reporting what is still buffered (default 10 s). */
  flushTimeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * Called for every record refused or invalid, when a round of retries runs out, and for records dropped because
   * the buffer was full: those at most once a second (and at `flush()`), with every drop since in one failure.
   */
  onError?: (failure: DeliveryFailure) => void;
  /**
   * When the process's event loop runs dry with records still buffered (an agent that returns from main without
   * `close()`), flush them once within `flushTimeoutMs`, and at exit print on stderr how many were not delivered
   * (default true). `process.exit()` skips the flush; the line is still printed.
   */
  flushOnExit?: boolean;
};

/** Thrown by `flush()` when any record was not delivered; `report` lists what happened to each batch. */
export class DeliveryError extends Error {
  override readonly name = "DeliveryError";
  constructor(readonly report: DeliveryReport) {
    const lost = report.failed.reduce((sum, failure) => sum + failure.count, 0);
    super(`${lost} record(s) not delivered: ${report.failed.map((failure) => failure.kind).join(", ")}`);
  }
}
