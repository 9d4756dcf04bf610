import type { CollectorRecord } from "../record-types";

/** Where records go. `submit` never blocks the agent; `flush` says what happened to them. */
export interface RecordSink {
  submit(records: readonly CollectorRecord[]): void;
  flush(): Promise<DeliveryReport>;
  close?(): Promise<DeliveryReport>;
}

export type DeliveryFailure = {
  /** overflow: the buffer was full; rejected: a 4xx (not retried); unreachable: retries ran out. */
  kind: "overflow" | "rejected" | "unreachable";
  recordIds: string[];
  status?: number;
  /** The server's error code (e.g. invalid_records, record_conflict) — never a request header. */
  code?: string;
  attempts?: number;
};

export type DeliveryResult = { recordId: string; chainId?: string; state?: string; duplicate?: boolean };

export type DeliveryReport = {
  delivered: number;
  failed: DeliveryFailure[];
  /** Per-record answers from the server, when it sent them. */
  results: DeliveryResult[];
};

/** Thrown by `flush()` when any record was not delivered; `report` lists what happened to each batch. */
export class DeliveryError extends Error {
  override readonly name = "DeliveryError";
  constructor(readonly report: DeliveryReport) {
    const lost = report.failed.reduce((sum, failure) => sum + failure.recordIds.length, 0);
    super(`${lost} record(s) not delivered: ${report.failed.map((failure) => failure.kind).join(", ")}`);
  }
}
