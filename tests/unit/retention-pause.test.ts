import { describe, expect, it } from "vitest";
import { PAUSE_PER_STEP, pauseAfterStep } from "@/lib/server/retention/prune-job";

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
