// A background job's runs: one at a time, wake-ups during a run coalesced into one more run, a run with work left
// repeated at once, a failure reported without stopping later wake-ups.
import { describe, expect, it } from "vitest";
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
});
