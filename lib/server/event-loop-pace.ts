import { setImmediate as yieldToEventLoop } from "node:timers/promises";

/** CPU work one stretch may take before the event loop gets a turn (other requests, timers, the database's answers). */
export const STRETCH_MS = 5;

/**
 * For loops of CPU work whose awaits may never reach the event loop: an await on work that needs no I/O settles as a
 * microtask, so a loop over 3,000 small sessions held the loop for a second in one stretch. Awaited between items,
 * the returned function yields once `stretchMs` have passed since it last did.
 */
export function eventLoopPace(stretchMs = STRETCH_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < stretchMs) return;
    await yieldToEventLoop();
    since = performance.now();
  };
}
