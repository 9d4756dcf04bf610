/**
 * Property tests: invariants no hand-written fixture can confirm by itself, checked over
 * generated records built around the two base records.
 *
 * Domain: a record is a snapshot taken at observedAt, so the generator keeps every progress
 * notification at or before observedAt (the client cannot have received it later). Rule 15
 * makes a notification dated after `at` invalid until `at` reaches it; with evidence from
 * the future, "moving `at` later never revives `working`" would not hold — by design.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Classification, classify } from "@/lib/classifier/classify";
import { layerOfReason, NOT_OBSERVED_REASON_CODES, type ReasonCode } from "@/lib/classifier/reasons";
import { validateRecord } from "@/lib/contract/validate";
import { effectArb, optional, outcomeArb, recordArb, setOptional } from "@/tests/support/record-arbitraries";
import { t } from "@/tests/support/record-builders";

const RUNS = { numRuns: 2_000 };

const plus = (timestamp: string, ms: number) => new Date(Date.parse(timestamp) + ms).toISOString();

// Property runs are CPU-bound; generous timeouts keep them stable when the machine is busy.
describe("classify: properties over generated records", { timeout: 60_000 }, () => {
  it("the generator reaches every state, so the properties below are not vacuous", () => {
    const states = new Set(
      fc.sample(recordArb, { numRuns: 3_000, seed: 20261130 }).map((r) => classify(r).state),
    );
    expect(states.size).toBe(10);
  });

  it("the generator only builds records the schema accepts", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const result = validateRecord(record);
        expect(result.ok ? [] : result.issues).toEqual([]);
      }),
      RUNS,
    );
  });

  it("working always has nextCheckAt, and is never working 1 ms after it", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const result = classify(record);
        if (result.state !== "working") return;
        expect(result.nextCheckAt).toBeDefined();
        const nextCheckAt = result.nextCheckAt ?? "";
        expect(Date.parse(nextCheckAt)).toBeGreaterThanOrEqual(Date.parse(record.observedAt));
        expect(classify(record, nextCheckAt).state).toBe("working");
        expect(classify(record, plus(nextCheckAt, 1)).state).not.toBe("working");
      }),
      RUNS,
    );
  });

  it("moving `at` later never turns a non-working result into working", () => {
    fc.assert(
      fc.property(recordArb, fc.integer({ min: 0, max: 200_000 }), (record, laterBy) => {
        if (classify(record).state === "working") return;
        expect(classify(record, plus(record.observedAt, laterBy)).state).not.toBe("working");
      }),
      RUNS,
    );
  });

  it("effect or outcome evidence never changes a session-, catalog- or request-layer decision", () => {
    fc.assert(
      fc.property(recordArb, optional(effectArb), optional(outcomeArb), (record, effect, outcome) => {
        const before = classify(record);
        if (!["session", "catalog", "request"].includes(before.layer) || record.call === undefined) return;
        // v1.2: an unseen layer decides only a would-be healthy, which the outcome does move.
        if (NOT_OBSERVED_REASON_CODES.includes(before.reasons[0] as ReasonCode)) return;
        const call = record.call;
        setOptional(call, "effect", effect && { checkedAt: t(effect.checkedAt), status: effect.status });
        setOptional(
          call,
          "outcome",
          outcome && {
            checkedAt: t(outcome.checkedAt),
            verifier: outcome.verifier,
            verdict: outcome.verdict,
          },
        );
        const after = classify(record);
        expect([after.state, after.reasons[0]]).toEqual([before.state, before.reasons[0]]);
      }),
      RUNS,
    );
  });

  it("nothing without a passing outcome from after the call started is ever healthy", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        if (classify(record).state !== "healthy") return;
        const call = record.call;
        expect(call?.outcome?.verdict).toBe("pass");
        if (call?.outcome === undefined) return;
        expect(Date.parse(call.outcome.checkedAt)).toBeGreaterThanOrEqual(Date.parse(call.startedAt));
      }),
      RUNS,
    );
  });

  it("retrySafe is false whenever the state (or the shadowed state) is effect_unknown", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const result = classify(record);
        if (result.state === "effect_unknown" || result.shadowed?.state === "effect_unknown") {
          expect(result.retrySafe).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it("a state decided by the call's own error (rules 2, 7) has no shadowed; retrySafe counts only a direct refusal", () => {
    const refusals = [-32042, -32021, -32022];
    fc.assert(
      fc.property(recordArb, fc.constantFrom(...refusals), fc.boolean(), (generated, code, inTask) => {
        const record = structuredClone(generated); // fast-check reuses generated values while shrinking
        const call = record.call;
        if (call === undefined) return;
        // Rules 1 and 3–6 pass, so only the call's error can decide the session layer.
        delete record.session.auth;
        const { protocol, capabilities } = record.session;
        protocol.acceptedVersion = protocol.clientSupportedVersions[0];
        protocol.initializedAt ??= record.observedAt;
        capabilities.required = { server: [], client: [] };
        if (inTask) {
          call.response = { at: call.startedAt, kind: "result", resultType: "task" };
          call.task = {
            id: "task:p",
            status: "failed",
            updatedAt: call.startedAt,
            error: { code, class: "x" },
          };
        } else {
          delete call.task;
          call.response = { at: call.startedAt, kind: "error", error: { code, class: "x" } };
        }
        const result = classify(record);
        expect(result.state).toBe(code === -32042 ? "needs_auth" : "incompatible_session");
        expect(result.shadowed).toBeUndefined();
        const effect = call.effect;
        const ranAndMayHaveWritten = !(
          call.sideEffect === "none" ||
          call.inCatalog === false ||
          (effect?.status === "absent" && Date.parse(effect.checkedAt) >= Date.parse(call.startedAt))
        );
        expect(result.retrySafe).toBe(inTask ? !ranAndMayHaveWritten : true);
      }),
      RUNS,
    );
  });

  it("results are well formed (§4)", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const result: Classification = classify(record);
        const [deciding] = result.reasons;
        expect(deciding).toBeDefined();
        if (deciding !== undefined) expect(result.layer).toBe(layerOfReason(deciding));
        expect(new Set(result.reasons).size).toBe(result.reasons.length);
        expect(result.retrySafe !== undefined).toBe(record.call !== undefined);
        expect(result.evidence !== undefined).toBe(result.state === "healthy");
        expect(result.nextCheckAt !== undefined).toBe(result.state === "working");
        if (result.shadowed !== undefined) {
          expect(["session", "catalog"]).toContain(result.layer);
          expect(["protocol_error", "tool_failed", "effect_unknown", "false_success"]).toContain(
            result.shadowed.state,
          );
        }
        // Pure: same input, same answer.
        expect(classify(record)).toEqual(result);
      }),
      RUNS,
    );
  });

  it("null and absent optional fields classify the same", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const withNulls = JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
        withNulls.labels = null;
        if (withNulls.catalog === undefined) withNulls.catalog = null;
        if (withNulls.call === undefined) withNulls.call = null;
        const validated = validateRecord(withNulls);
        expect(validated.ok).toBe(true);
        if (validated.ok) expect(classify(validated.record)).toEqual(classify(record));
      }),
      { numRuns: 300 },
    );
  });
});
