// How one background job runs in this process: one run at a time; woken, it runs now or — when a run is in progress
// — once more right after it (any number of wake-ups during a run make one more run), so a change committed while
// the job was reading is never left for the next tick. A run that reports work left (a batch limit) runs again at
// once. A failed run is reported and ends the series; the next wake-up or tick tries again.
export type JobRun = () => Promise<unknown>;

export type JobRunner = {
  /** Run now, or once more after the run in progress. */
  wake: () => void;
  /** The safety tick: a run unless one is in progress. */
  tick: () => void;
  /** Resolves when no run is in progress (tests). */
  idle: () => Promise<void>;
};

export function createJobRunner(
  run: JobRun,
  hooks: { started?: () => void; failed?: (error: unknown) => void } = {},
): JobRunner {
  let running: Promise<void> | undefined;
  let again = false;
  const runOnce = async (): Promise<boolean> => {
    hooks.started?.();
    try {
      return (await run()) === true;
    } catch (error) {
      hooks.failed?.(error);
      return false;
    }
  };
  const runUntilQuiet = async () => {
    try {
      do {
        again = false;
        if (await runOnce()) again = true;
      } while (again);
    } finally {
      running = undefined;
    }
  };
  const start = () => {
    running = runUntilQuiet();
  };
  return {
    wake: () => {
      if (running) again = true;
      else start();
    },
    tick: () => {
      if (!running) start();
    },
    idle: async () => {
      while (running) await running;
    },
  };
}
