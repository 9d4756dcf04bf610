// How one background job runs in this process: one run at a time; woken, it runs now or — when a run is in progress
// — once more right after it (any number of wake-ups during a run make one more run), so a change committed while
// the job was reading is never left for the next tick. A run that reports work left (a batch limit) runs again at
// once. A failed run is reported and ends the series; the next wake-up or tick tries again. A job whose wake-ups need
// no haste (`soon`, with `gatherMs`) gathers them: the run starts `gatherMs` after the first, and wake-ups meanwhile, or
// during that run, join it or the next gathered one, so a busy stream of commits makes a run per window, not per commit.
export type JobRun = () => Promise<unknown>;

export type JobRunner = {
  /** Run now, or once more after the run in progress. */
  wake: () => void;
  /** Run within `gatherMs` (at once without it), with every other `soon` of that window. */
  soon: () => void;
  /** The safety tick: a run unless one is in progress. */
  tick: () => void;
  /** Resolves when no run is in progress (tests). */
  idle: () => Promise<void>;
};

export function createJobRunner(
  run: JobRun,
  hooks: { started?: () => void; failed?: (error: unknown) => void } = {},
  gatherMs = 0,
): JobRunner {
  let running: Promise<void> | undefined;
  let again = false;
  let gathering: NodeJS.Timeout | undefined;
  let soonAfterRun = false;
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
      if (soonAfterRun) {
        soonAfterRun = false;
        gather();
      }
    }
  };
  const start = () => {
    if (gathering) clearTimeout(gathering);
    gathering = undefined;
    running = runUntilQuiet();
  };
  const gather = () => {
    gathering ??= setTimeout(() => {
      gathering = undefined;
      if (running) again = true;
      else start();
    }, gatherMs);
  };
  const wake = () => {
    if (running) again = true;
    else start();
  };
  return {
    wake,
    soon: () => {
      if (gatherMs <= 0) wake();
      else if (running) soonAfterRun = true;
      else gather();
    },
    tick: () => {
      if (!running) start();
    },
    idle: async () => {
      while (running || gathering) {
        if (running) await running;
        else await new Promise((resolve) => setTimeout(resolve, gatherMs));
      }
    },
  };
}
