import { metrics } from "../metrics/registry";

// Where an alert's way to its receiver spends time (`receipt_alert_stage_seconds`, `npm run bench:alerts` prints
// it): each stage observed where it happens, so /metrics shows which one a slow page waited on.
export const ALERT_STAGES = [
  "commit_route",
  "outbox_wait",
  "route",
  "flush",
  "delivery_wait",
  "claim",
  "post",
  "record",
] as const;
export type AlertStage = (typeof ALERT_STAGES)[number];

export function observeStage(stage: AlertStage, seconds: number): void {
  metrics().alertStages.observe({ stage }, Math.max(0, seconds));
}

/** Each item's wait since `since` (a database timestamp), observed one by one. */
export function observeWaits(stage: AlertStage, since: Iterable<Date>, nowMs = Date.now()): void {
  for (const at of since) observeStage(stage, (nowMs - at.getTime()) / 1000);
}

/** Runs `work` and observes its time when `counts` says it did something (a run that found nothing is not a stage). */
export async function timeStage<T>(
  stage: AlertStage,
  work: () => Promise<T>,
  counts: (result: T) => boolean,
) {
  const started = performance.now();
  const result = await work();
  if (counts(result)) observeStage(stage, (performance.now() - started) / 1000);
  return result;
}
