/**
 * Replays tests/fixtures/seed-cases.json (contract §6): one case per original state, and the
 * two "change the evidence, the state moves" rules.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classify } from "@/lib/classifier/classify";
import { REASONS } from "@/lib/classifier/reasons";
import type { HealthRecord } from "@/lib/contract/record";
import type { State } from "@/lib/contract/states";
import { validateRecord } from "@/lib/contract/validate";

type SeedCase = { name: string; expectedState: State; expectedReason: string; record: unknown };

const fixture = JSON.parse(readFileSync(new URL("../fixtures/seed-cases.json", import.meta.url), "utf8")) as {
  cases: SeedCase[];
};

const ORIGINAL_NINE: State[] = [
  "needs_auth",
  "incompatible_session",
  "stale_catalog",
  "working",
  "protocol_error",
  "tool_failed",
  "effect_unknown",
  "false_success",
  "healthy",
];

function validated(input: unknown): HealthRecord {
  const result = validateRecord(input);
  if (!result.ok) throw new Error(`seed record invalid: ${JSON.stringify(result.issues)}`);
  return result.record;
}

function seed(state: State): HealthRecord {
  const found = fixture.cases.find((c) => c.expectedState === state);
  if (found === undefined) throw new Error(`no seed case for ${state}`);
  return validated(structuredClone(found.record));
}

describe("seed fixture (§6)", () => {
  it.each(fixture.cases)("$name → $expectedState", ({ record, expectedState, expectedReason }) => {
    const result = classify(validated(record));
    expect(result.state).toBe(expectedState);
    expect(result.reasons[0]).toBe(expectedReason);
  });

  it("replays into the nine original states, each exactly once", () => {
    const states = fixture.cases.map((c) => classify(validated(c.record)).state);
    expect(states).toHaveLength(9);
    expect([...states].sort()).toEqual([...ORIGINAL_NINE].sort());
  });

  it("covers both protocol eras", () => {
    const eras = new Set(fixture.cases.map((c) => validated(c.record).session.protocol.era));
    expect(eras).toEqual(new Set(["legacy", "modern"]));
  });

  it("a complete refresh after the list change advances the stale case", () => {
    const record = seed("stale_catalog");
    const catalog = record.catalog;
    const [changedAt] = catalog?.listChangedAt ?? [];
    if (catalog === undefined || changedAt === undefined || record.call === undefined)
      throw new Error("fixture shape");
    // Refreshed completely between the list change and the call.
    const refreshedMs = (Date.parse(changedAt) + Date.parse(record.call.startedAt)) / 2;
    catalog.refreshedAt = new Date(refreshedMs).toISOString();
    catalog.complete = true;
    const result = classify(validated(record));
    expect(result.state).not.toBe("stale_catalog");
    expect(result).toMatchObject({ state: "healthy", reasons: [REASONS.OUTCOME_VERIFIED] });

    // The same refresh, left incomplete, is still stale.
    catalog.complete = false;
    expect(classify(validated(record)).reasons).toEqual([REASONS.CATALOG_INCOMPLETE]);
  });

  it("a destination receipt plus a failing verifier moves the timeout case to false_success", () => {
    const record = seed("effect_unknown");
    const call = record.call;
    if (call === undefined) throw new Error("fixture shape");
    expect(classify(record).state).toBe("effect_unknown");

    const checkedMs = Date.parse(record.observedAt) - 1_000;
    call.effect = {
      checkedAt: new Date(checkedMs).toISOString(),
      status: "committed",
      receipt: "reports/57@v1",
    };
    // The receipt alone settles the write: now only the outcome is missing.
    expect(classify(validated(record)).state).toBe("unverified");

    call.outcome = {
      checkedAt: new Date(checkedMs + 500).toISOString(),
      verifier: "db_row",
      verdict: "fail",
    };
    const result = classify(validated(record));
    expect(result).toMatchObject({ state: "false_success", layer: "outcome" });
    expect(result.reasons[0]).toBe(REASONS.OUTCOME_VERIFIER_FAILED);
  });

  it("the working case stops being working one millisecond after nextCheckAt", () => {
    const record = seed("working");
    const { nextCheckAt } = classify(record);
    expect(nextCheckAt).toBeDefined();
    if (nextCheckAt === undefined) return;
    expect(classify(record, nextCheckAt).state).toBe("working");
    const later = new Date(Date.parse(nextCheckAt) + 1).toISOString();
    expect(classify(record, later).state).toBe("effect_unknown");
  });
});
