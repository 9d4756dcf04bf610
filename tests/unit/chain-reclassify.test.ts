import { describe, expect, it } from "vitest";
import { reclassifyStored, type StoredChain } from "@/lib/chains/reclassify";
import { classificationColumns } from "@/lib/chains/transitions";
import { classify } from "@/lib/classifier";
import type { HealthRecord } from "@/lib/contract";
import { build, handshakeUnseen, legacyRecord } from "../support/record-builders";

// `npm run reclassify`'s decision for one chain: today's classifier on the current record, at the time the stored
// classification was made; nothing when they agree, a new row when they do not, a history row when the state moves.

const NOW = new Date("2026-12-06T00:00:00.000Z");

function storedAs(record: HealthRecord, stored: StoredChain["stored"]): StoredChain {
  return {
    chainId: record.chainId,
    currentSeq: 7n,
    recordCount: 2,
    evaluatedAt: new Date(record.observedAt),
    stored,
    record,
  };
}

const columnsOf = (record: HealthRecord) => classificationColumns(classify(record));

describe("reclassifyStored", () => {
  it("a chain stored as today's classifier reads it is left alone", () => {
    const record = legacyRecord();
    expect(reclassifyStored(storedAs(record, columnsOf(record)), undefined, NOW)).toBeUndefined();
  });

  it("a call group with an unseen handshake stored the pre-v1.2 way moves, with a reclassify history row", () => {
    const record = build(handshakeUnseen);
    const current = classify(record);
    expect(current.reasons).toContain("session.not_observed");
    const old = {
      ...columnsOf(record),
      state: "incompatible_session",
      layer: "session",
      reasons: ["session.not_initialized"],
    };
    const decided = reclassifyStored(storedAs(record, old), undefined, NOW);
    expect(decided?.row).toMatchObject({
      chainId: record.chainId,
      state: current.state,
      reasons: current.reasons,
      currentSeq: 7n,
      recordCount: 2,
      evaluatedAt: new Date(record.observedAt),
    });
    expect(decided?.change).toEqual({
      chainId: record.chainId,
      fromState: "incompatible_session",
      toState: current.state,
      reason: current.reasons[0],
      at: NOW,
      recordId: record.recordId,
      cause: "reclassify",
    });
  });

  it("the same state with other reasons rewrites the row without a history row", () => {
    const record = legacyRecord();
    const stored = { ...columnsOf(record), reasons: [...columnsOf(record).reasons, "outcome.weak_evidence"] };
    const decided = reclassifyStored(storedAs(record, stored), undefined, NOW);
    expect(decided?.row.reasons).toEqual(columnsOf(record).reasons);
    expect(decided?.change).toBeUndefined();
  });

  it("destination evidence an operator recorded counts, as for the deadline worker", () => {
    const record = build((r) => {
      if (r.call === undefined) throw new Error("no call");
      delete r.call.response;
      delete r.call.effect;
      delete r.call.outcome;
      r.call.sideEffect = "write";
      r.call.deadlineMs = 1_000;
      r.call.inactivityMs = 1_000;
      r.observedAt = new Date(Date.parse(r.call.startedAt) + 5_000).toISOString();
    });
    const withoutCheck = classify(record);
    expect(withoutCheck.state).toBe("effect_unknown");
    const effect = { status: "absent" as const, receipt: "no row", checkedAt: new Date(record.observedAt) };
    const decided = reclassifyStored(storedAs(record, columnsOf(record)), effect, NOW);
    expect(decided?.change).toMatchObject({ fromState: "effect_unknown", toState: "tool_failed" });
  });
});
