// What a chain write does to its alerts (the outbox's input), as a pure function of the written rows and the
// stored alerts: open, refresh/confirm, resolve, and the operator's resolve mark.
import { describe, expect, it } from "vitest";
import { alertFingerprint } from "@/lib/routing/fingerprint";
import { planChainAlerts } from "@/lib/routing/alert-plan";
import type { StoredAlert } from "@/lib/routing/alert-rows";
import type { ChainRow } from "@/lib/chains/transitions";

function row(state: string, reason: string, recordId: string, extra: Partial<ChainRow> = {}): ChainRow {
  return {
    chainId: "c1",
    sessionId: "s1",
    state,
    layer: "request",
    reasons: [reason],
    retrySafe: true,
    evidence: null,
    shadowedState: null,
    shadowedReason: null,
    nextCheckAt: null,
    currentRecordId: recordId,
    currentSeq: 1n,
    observedAt: new Date(0),
    evaluatedAt: new Date(0),
    serverName: "srv",
    serverVersion: "1",
    clientName: "cli",
    clientVersion: "1",
    transport: "stdio",
    tool: "t",
    labels: {},
    recordCount: 1,
    requestId: "1",
    operationKey: null,
    ...extra,
  };
}

const fp = alertFingerprint("c1", "tool_failed");
function stored(over: Partial<StoredAlert> = {}): StoredAlert {
  const first = planChainAlerts([row("tool_failed", "request.tool_error", "r1")], []).opened[0];
  if (!first) throw new Error("tool_failed opens an alert");
  return {
    fingerprint: fp,
    chainId: "c1",
    sessionId: "s1",
    state: "tool_failed",
    severity: first.alert.severity,
    status: "firing",
    labels: first.alert.labels,
    reasons: first.alert.reasons,
    retrySafe: true,
    recordId: "r1",
    confirmedAt: null,
    resolvedBy: null,
    ...over,
  };
}

describe("planChainAlerts", () => {
  it("a chain entering an alerting state opens its alert with a firing event", () => {
    const plan = planChainAlerts([row("tool_failed", "request.tool_error", "r1")], []);
    expect(plan.opened.map((w) => w.alert.fingerprint)).toEqual([fp]);
    expect(plan.events).toEqual([{ fingerprint: fp, chainId: "c1", event: "firing" }]);
  });

  it("quiet states open nothing", () => {
    expect(planChainAlerts([row("healthy", "outcome.verified", "r1")], []).events).toEqual([]);
  });

  it("leaving the state resolves the alert", () => {
    const plan = planChainAlerts([row("healthy", "outcome.verified", "r2")], [stored()]);
    expect(plan.resolved).toEqual([fp]);
    expect(plan.events).toEqual([{ fingerprint: fp, chainId: "c1", event: "resolved" }]);
  });

  it("the same record re-evaluated (a deadline or reconcile write) changes nothing", () => {
    const plan = planChainAlerts([row("tool_failed", "request.tool_error", "r1")], [stored()]);
    expect(plan).toMatchObject({ opened: [], refreshed: [], resolved: [], events: [] });
  });

  it("a newer record still in the state refreshes and confirms the alert once", () => {
    const plan = planChainAlerts([row("tool_failed", "request.tool_error", "r2")], [stored()]);
    expect(plan.refreshed).toMatchObject([{ recordId: "r2", confirm: true }]);
    expect(plan.events).toEqual([{ fingerprint: fp, chainId: "c1", event: "updated" }]);
    const again = planChainAlerts(
      [row("tool_failed", "request.tool_error", "r3")],
      [stored({ recordId: "r2", confirmedAt: new Date(1) })],
    );
    expect(again.refreshed).toMatchObject([{ confirm: false }]);
    expect(again.events).toEqual([]);
  });

  it("a changed reason is an update (it may route differently)", () => {
    const plan = planChainAlerts([row("tool_failed", "request.server_error", "r1")], [stored()]);
    expect(plan.events).toEqual([{ fingerprint: fp, chainId: "c1", event: "updated" }]);
  });

  it("an operator's resolve holds for the same record, and a newer record still failing re-opens it", () => {
    const resolved = stored({ status: "resolved", resolvedBy: "operator:alice" });
    expect(planChainAlerts([row("tool_failed", "request.tool_error", "r1")], [resolved]).events).toEqual([]);
    const reopened = planChainAlerts([row("tool_failed", "request.tool_error", "r2")], [resolved]);
    expect(reopened.opened.map((w) => w.alert.fingerprint)).toEqual([fp]);
    expect(reopened.events).toEqual([{ fingerprint: fp, chainId: "c1", event: "firing" }]);
  });

  it("once the chain leaves the state, an operator's mark is forgotten without a second resolve", () => {
    const resolved = stored({ status: "resolved", resolvedBy: "operator:alice" });
    const plan = planChainAlerts([row("healthy", "outcome.verified", "r1")], [resolved]);
    expect(plan.unmarked).toEqual([fp]);
    expect(plan.events).toEqual([]);
  });

  it("a shadowed effect_unknown opens its own alert beside the headline one", () => {
    const plan = planChainAlerts(
      [
        row("needs_auth", "auth.challenge_unresolved", "r1", {
          shadowedState: "effect_unknown",
          shadowedReason: "effect.unreconciled",
        }),
      ],
      [],
    );
    expect(plan.opened.map((w) => w.alert.state)).toEqual(["needs_auth", "effect_unknown"]);
  });
});
