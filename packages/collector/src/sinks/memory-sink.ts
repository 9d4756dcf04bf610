import type { CollectorRecord } from "../record-types";
import type { DeliveryReport, RecordSink } from "./types";

/** Keeps records in memory, one per recordId (as ingestion would): for tests and agents that don't post. */
export class MemorySink implements RecordSink {
  private readonly byId = new Map<string, CollectorRecord>();

  submit(records: readonly CollectorRecord[]): void {
    for (const record of records) if (!this.byId.has(record.recordId)) this.byId.set(record.recordId, record);
  }

  async flush(): Promise<DeliveryReport> {
    return { delivered: 0, failed: [], results: [], masked: [], pending: 0 };
  }

  get records(): CollectorRecord[] {
    return [...this.byId.values()];
  }

  chain(chainId: string): CollectorRecord[] {
    return this.records.filter((record) => record.chainId === chainId);
  }

  /** The chain's current evidence: the latest observedAt, ties to the last received. */
  latest(chainId: string): CollectorRecord | undefined {
    let latest: CollectorRecord | undefined;
    for (const record of this.chain(chainId))
      if (!latest || record.observedAt >= latest.observedAt) latest = record;
    return latest;
  }

  clear(): void {
    this.byId.clear();
  }
}
