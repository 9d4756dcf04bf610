import type { Call } from "../contract/record";
import { toMs } from "./decision";

export type ProgressScan = {
  /** Latest `at` among valid entries, if any. */
  lastValidAtMs: number | undefined;
  /** Some entry was not valid (rule 15): reported as `request.progress_inconsistent`. */
  inconsistent: boolean;
};

/**
 * Rule 15's definition of *valid* progress, applied in arrival order. An entry is valid when
 * its token is the call's `progressToken` (same JSON type and value: "1" is not 1), it lies
 * in `[startedAt, at]` — and not after `terminalAtMs`, the response time of a terminal
 * result — and its `progress` is strictly greater than the previous *valid* entry's, so one
 * bad entry cannot block the honest ones after it.
 */
export function scanProgress(
  call: Call,
  startedMs: number,
  atMs: number,
  terminalAtMs: number | undefined,
): ProgressScan {
  const upperMs = terminalAtMs === undefined ? atMs : Math.min(atMs, terminalAtMs);
  let lastValidAtMs: number | undefined;
  let lastValidProgress = Number.NEGATIVE_INFINITY;
  let inconsistent = false;
  for (const entry of call.progress) {
    const entryMs = toMs(entry.at);
    const valid =
      call.progressToken !== undefined &&
      entry.token === call.progressToken &&
      entryMs >= startedMs &&
      entryMs <= upperMs &&
      entry.progress > lastValidProgress;
    if (!valid) {
      inconsistent = true;
      continue;
    }
    lastValidProgress = entry.progress;
    if (lastValidAtMs === undefined || entryMs > lastValidAtMs) lastValidAtMs = entryMs;
  }
  return { lastValidAtMs, inconsistent };
}
