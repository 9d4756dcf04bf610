import { env } from "../env";

// Retention settings, derived once from the validated environment (lib/server/env.ts).

export type RetentionSettings = {
  enabled: boolean;
  recordDays: number;
  alertDays: number;
  spanDays: number;
  tickMs: number;
  batch: number;
  pauseMs: number;
};

let cached: RetentionSettings | undefined;

export function retentionSettings(): RetentionSettings {
  if (cached) return cached;
  const e = env();
  cached = {
    enabled: e.RECEIPT_RETENTION === "1",
    recordDays: e.RECEIPT_RETENTION_DAYS,
    alertDays: e.RECEIPT_ALERT_RETENTION_DAYS,
    spanDays: e.RECEIPT_OTLP_SPAN_RETENTION_DAYS,
    tickMs: e.RECEIPT_RETENTION_TICK_MS,
    batch: e.RECEIPT_RETENTION_BATCH,
    pauseMs: e.RECEIPT_RETENTION_PAUSE_MS,
  };
  return cached;
}
