// A background job's runs: one at a time, wake-ups during a run coalesced into one more run, a run with work left
// repeated at once, a failure reported without stopping later wake-ups; `soon` gathered into one run a window.
import { describe, expect, it, vi } from "vitest";
import { createJobRunner } from "@/lib/server/worker/job-runner";

/** A job whose runs finish only when the test releases them. */
function gatedJob(results: unknown[] = []) {
  const releases: (() => void)[] = [];
  let runs = 0;
  const run = async () => {
    runs++;
    await new Promise<void>((resolve) => releases.push(resolve));
    const result = results.shift();
    if (result instanceof Error) throw result;
    return result;
  };
  const releaseNext = async () => {
    while (releases.length === 0) await new Promise((r) => setTimeout(r, 1));
    releases.shift()?.();
  };
  return { run, runs: () => runs, releaseNext };
}

describe("createJobRunner", () => {
  it("wake-ups during a run make exactly one more run, right after it", async () => {
    const job = gatedJob();
    const runner = createJobRunner(job.run);
    runner.wake();
    runner.wake();
    runner.wake();
    expect(job.runs()).toBe(1);
    await job.releaseNext();
    await job.releaseNext();
    await runner.idle();
    expect(job.runs()).toBe(2);
  });

  it("a tick during a run does nothing; a tick when idle runs", async () => {
    const job = gatedJob();
    const runner = createJobRunner(job.run);
    runner.tick();
    runner.tick();
    await job.releaseNext();
    await runner.idle();
    expect(job.runs()).toBe(1);
    runner.tick();
    await job.releaseNext();
    await runner.idle();
    expect(job.runs()).toBe(2);
  });

  it("a run that reports work left runs again at once, until it does not", async () => {
    const job = gatedJob([true, true, 0]);
    const runner = createJobRunner(job.run);
    runner.wake();
    for (let i = 0; i < 3; i++) await job.releaseNext();
    await runner.idle();
    expect(job.runs()).toBe(3);
  });

  it("a failed run is reported and the next wake-up runs again", async () => {
    const failures: unknown[] = [];
    const job = gatedJob([new Error("database down"), undefined]);
    const runner = createJobRunner(job.run, { failed: (error) => failures.push(error) });
    runner.wake();
    await job.releaseNext();
    await runner.idle();
    expect(failures).toHaveLength(1);
    runner.wake();
    await job.releaseNext();
    await runner.idle();
    expect(job.runs()).toBe(2);
  });

  it("soon without a window is wake: the run starts at once", async () => {
    const job = gatedJob();
    const runner = createJobRunner(job.run);
    runner.soon();
    expect(job.runs()).toBe(1);
    await job.releaseNext();
    await runner.idle();
    expect(job.runs()).toBe(1);
  });

  it("soon with a window: every soon of the window makes one run, started when the window ends", async () => {
    vi.useFakeTimers();
    try {
      let runs = 0;
      const runner = createJobRunner(async () => void runs++, {}, 100);
      runner.soon();
      await vi.advanceTimersByTimeAsync(60);
      runner.soon();
      runner.soon();
      expect(runs).toBe(0);
      await vi.advanceTimersByTimeAsync(40);
      expect(runs).toBe(1);
      await vi.advanceTimersByTimeAsync(500);
      expect(runs).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("soon during a run gathers the next run after it; wake and tick never wait for a window", async () => {
    vi.useFakeTimers();
    try {
      const job = gatedJob();
      const runner = createJobRunner(job.run, {}, 100);
      runner.wake();
      expect(job.runs()).toBe(1);
      runner.soon();
      runner.soon();
      job.releaseNext();
      await vi.advanceTimersByTimeAsync(1);
      // The run ended; the two soons wait for their window.
      expect(job.runs()).toBe(1);
      await vi.advanceTimersByTimeAsync(100);
      expect(job.runs()).toBe(2);
      job.releaseNext();
      await vi.advanceTimersByTimeAsync(1);
      // A window opens, and a wake-up cuts it short: the run starts at once, and the window's timer is gone.
      runner.soon();
      runner.wake();
      expect(job.runs()).toBe(3);
      job.releaseNext();
      await vi.advanceTimersByTimeAsync(500);
      expect(job.runs()).toBe(3);
      runner.soon();
      runner.tick();
      expect(job.runs()).toBe(4);
      job.releaseNext();
      await vi.advanceTimersByTimeAsync(500);
      expect(job.runs()).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
