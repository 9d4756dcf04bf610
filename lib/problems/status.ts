import type { ProblemResolution, ProblemStatus } from "./types";

/**
 * Resolved until a chain of the problem is written after the resolution: then it is open again, marked as a
 * regression. `lastWrittenAt` is the server's clock (when a chain was last stored), not the agent's observedAt,
 * so a late or skewed clock cannot hide a regression or fake one.
 */
export function problemStatus(lastWrittenAtMs: number, resolution: ProblemResolution | null): ProblemStatus {
  if (!resolution) return "open";
  return lastWrittenAtMs > Date.parse(resolution.resolvedAt) ? "regressed" : "resolved";
}
