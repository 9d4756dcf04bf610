import { alertsForChain } from "./alerts";
import { diffChainAlerts } from "./lifecycle";
import type { Alert } from "./types";
import type { ChainRow } from "@/lib/chains/transitions";
import { alertOf, classifiedChainOf, type StoredAlert, sameLabels } from "./alert-rows";

export type OutboxEvent = { fingerprint: string; chainId: string; event: "firing" | "resolved" | "updated" };

/** An alert to write, with the record whose evidence its context is taken from. */
export type AlertWrite = { alert: Alert; recordId: string; recordSeq: bigint; confirm: boolean };

export type AlertPlan = {
  /** New, or re-opened after a resolve: firing from now. */
  opened: AlertWrite[];
  /** Still open, refreshed from a newer record or with changed reasons, severity or labels. */
  refreshed: AlertWrite[];
  /** The chain left the state: firing → resolved. */
  resolved: string[];
  /** Resolved earlier by an operator or a re-discovery; the chain has now left the state, so forget the mark. */
  unmarked: string[];
  events: OutboxEvent[];
};

/**
 * What the written chain rows do to their alerts (pure: the caller reads `stored` and writes the plan).
 * `stored` holds each chain's firing alerts and its alerts resolved with a mark (resolvedBy): a marked alert
 * counts as still open while the chain shows the same record — an operator's resolve is not undone by the
 * same evidence being re-evaluated — and a newer record still in the state opens it again.
 */
export function planChainAlerts(rows: readonly ChainRow[], stored: readonly StoredAlert[]): AlertPlan {
  const plan: AlertPlan = { opened: [], refreshed: [], resolved: [], unmarked: [], events: [] };
  const byChain = new Map<string, StoredAlert[]>();
  for (const row of stored) byChain.set(row.chainId, [...(byChain.get(row.chainId) ?? []), row]);

  for (const row of rows) {
    const next = alertsForChain(classifiedChainOf(row));
    const mine = byChain.get(row.chainId) ?? [];
    const open = mine.filter((s) => s.status === "firing" || s.recordId === row.currentRecordId);
    const storedBy = new Map(open.map((s) => [s.fingerprint, s]));
    const diff = diffChainAlerts(open.map(alertOf), next);
    const write = (alert: Alert, confirm: boolean): AlertWrite => ({
      alert,
      recordId: row.currentRecordId,
      recordSeq: row.currentSeq,
      confirm,
    });

    for (const alert of diff.opened) {
      plan.opened.push(write(alert, false));
      plan.events.push({ fingerprint: alert.fingerprint, chainId: row.chainId, event: "firing" });
    }
    for (const fingerprint of diff.resolved) {
      if (storedBy.get(fingerprint)?.status === "firing") {
        plan.resolved.push(fingerprint);
        plan.events.push({ fingerprint, chainId: row.chainId, event: "resolved" });
      } else plan.unmarked.push(fingerprint);
    }
    const nextFingerprints = new Set(next.map((a) => a.fingerprint));
    for (const s of mine) {
      if (!storedBy.has(s.fingerprint) && !nextFingerprints.has(s.fingerprint))
        plan.unmarked.push(s.fingerprint);
    }
    for (const { alert, changed } of diff.continuing) {
      const previous = storedBy.get(alert.fingerprint);
      if (previous?.status !== "firing") continue; // resolved by hand: left as it is
      const newRecord = previous.recordId !== row.currentRecordId;
      // A newer record still in the state is what ends a route's bounded wait early (confirmOnNextRecord).
      const confirm = newRecord && previous.confirmedAt === null;
      const moved = changed || !sameLabels(previous.labels, alert.labels);
      if (!moved && !newRecord) continue;
      plan.refreshed.push(write(alert, confirm));
      if (moved || confirm)
        plan.events.push({ fingerprint: alert.fingerprint, chainId: row.chainId, event: "updated" });
    }
  }
  return plan;
}
