import { describe, expect, it } from "vitest";
import { classifyWithOperatorEffect, storedOutcome } from "@/lib/chains/operator-evidence";
import { decideReconcile, type ReconcileHead } from "@/lib/chains/reconcile";
import type { TCheck } from "@/lib/checks/config";
import type { CheckDecision } from "@/lib/checks/decide";
import { classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";
import { withRecordedOutcome } from "@/lib/dashboard/evidence-layers";
import { assertsOutcome, settlingDecision, settlingOutcome } from "@/lib/server/checks/settling-decision";
import { legacyRecord, requireCall } from "@/tests/support/record-builders";

// Destination evidence recorded outside the record (an operator's reconciliation, a check Receipt ran) stands in for
// the record's own effect and outcome where it is newer: what the destination shows settles an unknown effect and
// verifies (or refutes) an unverified call.
const unverified = (): HealthRecord => {
  const record = legacyRecord();
  delete requireCall(record).outcome;
  return record;
};
const later = (record: HealthRecord, ms: number) => new Date(Date.parse(record.observedAt) + ms);
const head = (record: HealthRecord): ReconcileHead => {
  const classification = classify(record);
  return {
    chainId: record.chainId,
    state: classification.state,
    shadowedState: classification.shadowed?.state ?? null,
    currentSeq: 1n,
    recordCount: 1,
    record,
  };
};

describe("classifyWithOperatorEffect", () => {
  it("a recorded pass verifies an unverified call; a fail refutes it; absent after a success is a false success", () => {
    const record = unverified();
    expect(classify(record).state).toBe("unverified");
    const at = later(record, 60_000);
    const outcome = (verdict: "pass" | "fail") => ({
      verdict,
      verifier: "http_status" as const,
      receipt: "HTTP 200",
    });
    const pass = classifyWithOperatorEffect(record, classify(record), {
      status: "committed",
      receipt: null,
      checkedAt: at,
      outcome: outcome("pass"),
    });
    expect([pass.state, pass.reasons[0], pass.evidence]).toEqual(["healthy", "outcome.verified", "strong"]);
    const fail = classifyWithOperatorEffect(record, classify(record), {
      status: "committed",
      receipt: null,
      checkedAt: at,
      outcome: outcome("fail"),
    });
    expect([fail.state, fail.reasons[0]]).toEqual(["false_success", "outcome.verifier_failed"]);
    const absent = classifyWithOperatorEffect(record, classify(record), {
      status: "absent",
      receipt: null,
      checkedAt: at,
    });
    expect([absent.state, absent.reasons[0]]).toEqual(["false_success", "effect.absent"]);
  });

  it("the record's own newer outcome wins over an older recorded one; each layer on its own", () => {
    const record = legacyRecord();
    const own = classify(record);
    // Older than both of the record's own checks (effect at +20 s, outcome at +30 s): neither layer changes.
    const before = new Date(Date.parse(requireCall(record).effect?.checkedAt ?? "") - 1);
    const stale = classifyWithOperatorEffect(record, own, {
      status: "absent",
      receipt: null,
      checkedAt: before,
      outcome: { verdict: "fail", verifier: "db_row", receipt: null },
    });
    expect(stale).toBe(own);
    // Between the two: the recorded effect (absent) is newer than the record's and stands in; its outcome does not.
    const between = new Date(Date.parse(requireCall(record).outcome?.checkedAt ?? "") - 1);
    const mixed = classifyWithOperatorEffect(record, own, {
      status: "absent",
      receipt: null,
      checkedAt: between,
      outcome: { verdict: "pass", verifier: "db_row", receipt: null },
    });
    expect([mixed.state, mixed.reasons[0]]).toEqual(["false_success", "effect.absent"]);
  });
});

describe("decideReconcile settling an unverified call", () => {
  it("refuses a chain that is not unverified or has no call, and settles one that is", () => {
    const healthy = head(legacyRecord());
    expect(
      decideReconcile(healthy, { status: "committed", receipt: null }, new Date(), "unverified"),
    ).toEqual({
      refused: "chain state is healthy",
    });
    const noCall = legacyRecord();
    delete noCall.call;
    expect(
      decideReconcile(head(noCall), { status: "committed", receipt: null }, new Date(), "unverified"),
    ).toHaveProperty("refused");
    const record = unverified();
    const decision = decideReconcile(
      head(record),
      {
        status: "committed",
        receipt: null,
        outcome: { verdict: "pass", verifier: "db_row", receipt: "1 row" },
      },
      later(record, 1_000),
      "unverified",
    );
    if ("refused" in decision) throw new Error(decision.refused);
    expect(decision.classification.state).toBe("healthy");
    expect(decision.changes).toEqual([
      expect.objectContaining({ fromState: "unverified", toState: "healthy" }),
    ]);
    // The default still settles only an unknown effect.
    expect(decideReconcile(head(record), { status: "committed", receipt: null }, new Date())).toHaveProperty(
      "refused",
    );
  });
});

describe("which check settles", () => {
  const check = (name: string, kind: "http" | "sql", outcome: boolean): TCheck =>
    ({
      name,
      match: { labels: {} },
      ...(kind === "http"
        ? {
            http: {
              url: "http://x/{operationKey}",
              ...(outcome ? { outcome: { pointer: "/s", equals: "ok" } } : {}),
            },
          }
        : {
            sql: {
              connection: "C",
              query: "select 1",
              ...(outcome ? { outcome: { column: "s", equals: "ok" } } : {}),
            },
          }),
    }) as unknown as TCheck;
  const run = (c: TCheck, effect: CheckDecision["effect"], outcome: CheckDecision["outcome"] = null) => ({
    check: c,
    decision: { effect, outcome, receipt: effect === "absent" ? "0 rows" : "HTTP 200" },
  });

  it("fail wins over pass among checks that agree the effect is committed, and names its verifier", () => {
    const web = check("web", "http", true);
    const rows = check("rows", "sql", true);
    expect(settlingOutcome([run(web, "committed", "pass"), run(rows, "committed", "fail")])).toMatchObject({
      verdict: "fail",
      verifier: "db_row",
      receipt: "check:rows HTTP 200",
    });
    expect(settlingOutcome([run(web, "committed", "pass")])).toMatchObject({
      verdict: "pass",
      verifier: "http_status",
    });
    expect(settlingOutcome([run(web, "committed"), run(rows, "absent")])).toBeNull();
  });

  it("checks that disagree on the effect settle nothing; unknown answers do not vote", () => {
    const a = check("a", "http", false);
    const b = check("b", "sql", false);
    expect(settlingDecision([run(a, "committed"), run(b, "absent")])).toBeNull();
    expect(settlingDecision([run(a, "unknown"), run(b, "absent")])?.check.name).toBe("b");
  });

  it("only a check with an outcome assertion verifies unverified calls", () => {
    expect(assertsOutcome(check("a", "http", true))).toBe(true);
    expect(assertsOutcome(check("b", "sql", true))).toBe(true);
    expect(assertsOutcome(check("c", "http", false))).toBe(false);
    expect(assertsOutcome(check("d", "sql", false))).toBe(false);
  });
});

describe("stored and shown outcomes", () => {
  it("three nullable columns make an outcome only with a verdict; an unknown verifier reads as other", () => {
    expect(storedOutcome(null, null, null)).toBeNull();
    expect(storedOutcome("maybe", "db_row", null)).toBeNull();
    expect(storedOutcome("pass", "db_row", "1 row")).toEqual({
      verdict: "pass",
      verifier: "db_row",
      receipt: "1 row",
    });
    expect(storedOutcome("fail", "llm_judge", null)).toEqual({
      verdict: "fail",
      verifier: "other",
      receipt: null,
    });
  });

  it("the evidence view shows the newest recorded outcome unless the record's own is newer", () => {
    const record = unverified();
    const at = later(record, 5_000).toISOString();
    const outcome = { verdict: "fail" as const, verifier: "http_status" as const, receipt: "HTTP 200" };
    const shown = withRecordedOutcome(record, [
      { checkedAt: later(record, 1_000).toISOString(), outcome: null },
      { checkedAt: at, outcome },
    ]);
    expect(shown.call?.outcome).toEqual({
      checkedAt: at,
      verifier: "http_status",
      verdict: "fail",
      receipt: "HTTP 200",
    });
    const verified = legacyRecord();
    const old = new Date(Date.parse(requireCall(verified).outcome?.checkedAt ?? "") - 1).toISOString();
    expect(withRecordedOutcome(verified, [{ checkedAt: old, outcome }])).toBe(verified);
  });
});
