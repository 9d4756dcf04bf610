import { describe, expect, it } from "vitest";
import {
  BATCH_RANGE,
  batchBounds,
  nextBatch,
  PAUSE_PER_STEP,
  pauseAfterStep,
  STEP_TARGET_MS,
} from "@/lib/retention/step-pacing";

describe("the pause between pruning steps", () => {
  it("is the setting while steps are quick", () => {
    expect(pauseAfterStep(50, 1000)).toBe(1000);
  });

  it("grows with a slow step, so pruning keeps to a fifth of the time on a busy database", () => {
    expect(pauseAfterStep(600, 1000)).toBe(600 * PAUSE_PER_STEP);
    expect(600 / (600 + pauseAfterStep(600, 1000))).toBeLessThanOrEqual(0.2);
  });

  it("is none when the setting is 0", () => {
    expect(pauseAfterStep(600, 0)).toBe(0);
  });
});

describe("the batch of the next pruning step", () => {
  const bounds = batchBounds(500);
  const quick = STEP_TARGET_MS / 5;
  const slow = STEP_TARGET_MS * 3;

  it("starts at RECEIPT_RETENTION_BATCH and moves within BATCH_RANGE times either way", () => {
    expect(bounds).toEqual({ start: 500, min: 500 / BATCH_RANGE, max: 500 * BATCH_RANGE });
    expect(batchBounds(7)).toEqual({ start: 7, min: 1, max: 7 * BATCH_RANGE });
  });

  it("doubles while full steps are quick, up to the ceiling", () => {
    let batch = bounds.start;
    const seen = [];
    for (let i = 0; i < 8; i++) {
      batch = nextBatch(batch, quick, true, bounds);
      seen.push(batch);
    }
    expect(seen).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000, 10_000]);
  });

  it("does not grow on a quick step that found less than a batch of any kind", () => {
    expect(nextBatch(500, quick, false, bounds)).toBe(500);
  });

  it("halves after a step longer than twice its target, down to the floor", () => {
    expect(nextBatch(4000, slow, true, bounds)).toBe(2000);
    expect(nextBatch(4000, slow, false, bounds)).toBe(2000);
    expect(nextBatch(bounds.min, slow, true, bounds)).toBe(bounds.min);
  });

  it("keeps a batch whose step takes one to two targets", () => {
    expect(nextBatch(2000, STEP_TARGET_MS, true, bounds)).toBe(2000);
    expect(nextBatch(2000, 2 * STEP_TARGET_MS, true, bounds)).toBe(2000);
  });

  it("settles where a step takes one to two targets when a step's time grows with its batch", () => {
    // A database that deletes 5 rows a millisecond: 1,250 rows take the target.
    let batch = bounds.start;
    for (let i = 0; i < 10; i++) batch = nextBatch(batch, batch / 5, true, bounds);
    expect(batch / 5).toBeGreaterThanOrEqual(STEP_TARGET_MS);
    expect(batch / 5).toBeLessThanOrEqual(2 * STEP_TARGET_MS);
    // Then the database slows down tenfold: the batch comes back down to its target.
    for (let i = 0; i < 10; i++) batch = nextBatch(batch, batch / 0.5, true, bounds);
    expect(batch / 0.5).toBeLessThanOrEqual(2 * STEP_TARGET_MS);
  });
});
