import { performance } from "node:perf_hooks";
import { metrics } from "../metrics/registry";
import { takeWakeDelayMs } from "../worker/wake";

// Where an alert's time goes between its commit and its receiver (receipt_alert_stage_seconds, read by
// `npm run bench:alerts`): the wake-ups, routing the outbox into groups, flushing groups into deliveries, the claim,
// the POST and the attempt's record.
export type AlertStage = "wake_routing" | "outbox" | "group" | "wake_delivery" | "claim" | "post" | "record";

export function observeStage(stage: AlertStage, ms: number): void {
  metrics().alertStages.observe({ stage }, ms / 1000);
}

/** The job's wake-up delay, when a wake-up (not its tick) started this run. */
export function observeWake(stage: "wake_routing" | "wake_delivery", job: string): void {
  const ms = takeWakeDelayMs(job);
  if (ms !== null) observeStage(stage, ms);
}

/** Runs `work` and observes its duration when `counts` says it did something (an empty run is not a stage). */
export async function timeStage<T>(
  stage: AlertStage,
  work: () => Promise<T>,
  counts: (result: T) => boolean,
) {
  const started = performance.now();
  const result = await work();
  if (counts(result)) observeStage(stage, performance.now() - started);
  return result;
}
