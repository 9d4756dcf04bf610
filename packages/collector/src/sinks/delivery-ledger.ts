import type { DeliveryCounts, DeliveryFailure, DeliveryReport, DeliveryResult, MaskedField } from "./types";

/** Record ids named per report, and masked fields listed: the counts stay exact, the lists stay small. */
export const MAX_REPORTED_IDS = 1_000;
const MAX_FAILURE_ENTRIES = 100;

/**
 * What happened to records since the last flush, kept in bounded memory even when Receipt is down for hours and
 * nobody flushes: failures of the same kind merge once there are many, ids beyond `MAX_REPORTED_IDS` are counted,
 * not listed. Running totals (`counts`) are never reset.
 */
export class DeliveryLedger {
  readonly counts: Omit<DeliveryCounts, "pending" | "pendingBytes"> = {
    delivered: 0,
    masked: 0,
    dropped: { overflow: 0, invalid: 0, rejected: 0 },
  };
  private failures: DeliveryFailure[] = [];
  private namedIds = 0;
  private masked: MaskedField[] = [];
  private delivered = 0;
  private results: DeliveryResult[] = [];
  /** Flushes waiting: only then are per-record answers kept (a long-running agent would pile them up). */
  collecting = 0;

  fail(failure: DeliveryFailure): DeliveryFailure {
    if (failure.kind !== "unreachable") this.counts.dropped[failure.kind] += failure.count;
    const room = Math.max(0, MAX_REPORTED_IDS - this.namedIds);
    const kept: DeliveryFailure = { ...failure, recordIds: failure.recordIds.slice(0, room) };
    this.namedIds += kept.recordIds.length;
    // Overflows in a row are one story; past the entry cap, every kind merges into its first entry.
    const last = this.failures[this.failures.length - 1];
    const same =
      kept.kind === "overflow" && last?.kind === "overflow"
        ? last
        : this.failures.length >= MAX_FAILURE_ENTRIES
          ? this.failures.find((entry) => entry.kind === kept.kind)
          : undefined;
    if (same) {
      same.count += kept.count;
      same.recordIds.push(...kept.recordIds);
      if (kept.issues) same.issues = [...(same.issues ?? []), ...kept.issues].slice(0, MAX_REPORTED_IDS);
    } else this.failures.push(kept);
    return failure;
  }

  mask(fields: MaskedField[]): void {
    this.counts.masked += fields.length;
    const room = Math.max(0, MAX_REPORTED_IDS - this.masked.length);
    this.masked.push(...fields.slice(0, room));
  }

  deliver(count: number, results: DeliveryResult[]): void {
    this.counts.delivered += count;
    this.delivered += count;
    if (this.collecting > 0) this.results.push(...results);
  }

  /** The report since the last one; `stillBuffered` (if any) is reported as unreachable. */
  take(stillBuffered: DeliveryFailure | undefined, pending: number): DeliveryReport {
    const failed = stillBuffered ? [...this.failures, stillBuffered] : this.failures;
    const report: DeliveryReport = {
      delivered: this.delivered,
      failed,
      results: this.results,
      masked: this.masked,
      pending,
    };
    this.failures = [];
    this.namedIds = 0;
    this.masked = [];
    this.delivered = 0;
    this.results = [];
    return report;
  }
}
