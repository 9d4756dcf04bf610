// Alert lifecycle for one chain: compare the alerts it had (open in the outbox) with the alerts its
// new classification gives. A chain that leaves a state resolves that state's alert and opens one
// for its new state; same fingerprint means the same incident continues.
import type { Alert } from "./types";

export interface AlertDiff {
  /** New fingerprints: write "firing" outbox rows. */
  opened: Alert[];
  /** Fingerprints no longer produced: write "resolved" outbox rows. */
  resolved: string[];
  /** Still open; `changed` when reasons or severity moved (worth refreshing the stored alert). */
  continuing: Array<{ alert: Alert; changed: boolean }>;
}

export function diffChainAlerts(open: readonly Alert[], next: readonly Alert[]): AlertDiff {
  const before = new Map(open.map((a) => [a.fingerprint, a]));
  const after = new Set(next.map((a) => a.fingerprint));
  return {
    opened: next.filter((a) => !before.has(a.fingerprint)),
    resolved: open.filter((a) => !after.has(a.fingerprint)).map((a) => a.fingerprint),
    continuing: next.flatMap((alert) => {
      const previous = before.get(alert.fingerprint);
      if (!previous) return [];
      const changed =
        previous.severity !== alert.severity || previous.reasons.join("\n") !== alert.reasons.join("\n");
      return [{ alert, changed }];
    }),
  };
}
