import { describe, expect, it } from "vitest";
import { classify, REASON_CODES } from "@/lib/classifier";
import { effectiveEffect, evidenceLayers } from "@/lib/dashboard/evidence-layers";
import { progressTimeline } from "@/lib/dashboard/progress-timeline";
import { REASON_TEXT, reasonText } from "@/lib/dashboard/reason-text";
import { STATE_META } from "@/lib/dashboard/state-meta";
import { STATES } from "@/lib/contract";
import { shadowedTimeout } from "@/tests/support/dashboard-records";
import { seedCases } from "@/tests/support/seed-cases";
import {
  build,
  buildCall,
  catalogUnseen,
  handshakeUnseen,
  onlyCallSeen,
  t,
} from "@/tests/support/record-builders";

const view = (record: Parameters<typeof classify>[0]) => {
  const c = classify(record);
  return { state: c.state, layer: c.layer, reasons: [...c.reasons], shadowed: c.shadowed ?? null };
};
const statuses = (record: Parameters<typeof classify>[0]) =>
  Object.fromEntries(evidenceLayers(record, view(record)).map((layer) => [layer.layer, layer.status]));

describe("words for every code and state", () => {
  it("explains every reason code of the contract, and survives an unknown one", () => {
    for (const code of REASON_CODES) expect(REASON_TEXT[code].what.length, code).toBeGreaterThan(20);
    expect(reasonText("future.code").title).toBe("future.code");
  });

  it("gives every state a label, an icon and a colour (never colour alone)", () => {
    const icons = new Set(STATES.map((state) => STATE_META[state].icon));
    expect(icons.size).toBe(STATES.length);
    for (const state of STATES) expect(STATE_META[state].label).not.toBe("");
  });
});

describe("evidence layers", () => {
  it.each(seedCases().map((c) => [c.name, c] as const))(
    "%s: the deciding layer is the classifier's",
    (_, seed) => {
      const layers = evidenceLayers(seed.record, view(seed.record));
      const deciding = layers.filter((layer) => layer.deciding);
      expect(deciding.map((layer) => layer.layer)).toEqual([classify(seed.record).layer]);
      expect(deciding[0]?.reasons[0]).toBe(seed.expectedReason);
    },
  );

  it.each([
    [
      "healthy export",
      "healthy",
      { session: "ok", catalog: "ok", request: "ok", effect: "ok", outcome: "ok" },
    ],
    [
      "timeout",
      "effect_unknown",
      { session: "ok", catalog: "ok", request: "missing", effect: "missing", outcome: "not_reached" },
    ],
    [
      "long-running task",
      "working",
      { session: "ok", catalog: "ok", request: "pending", effect: "not_reached", outcome: "not_reached" },
    ],
    [
      "auth challenge",
      "needs_auth",
      {
        session: "failed",
        catalog: "not_reached",
        request: "missing", // this chain has no call at all: the request layer lacks it

        effect: "not_reached",
        outcome: "not_reached",
      },
    ],
  ])("%s → layer statuses", (_, state, expected) => {
    const seed = seedCases().find((c) => c.expectedState === state);
    expect(seed && statuses(seed.record)).toEqual(expected);
  });

  it("a shadowed effect in doubt marks its own layer, behind the session decision", () => {
    const layers = evidenceLayers(shadowedTimeout("unit"), view(shadowedTimeout("unit")));
    const effect = layers.find((layer) => layer.layer === "effect");
    expect(effect).toMatchObject({ shadowed: true, status: "missing", reasons: ["effect.unreconciled"] });
    expect(layers.find((layer) => layer.deciding)?.layer).toBe("session");
  });

  it("says what is missing plainly, even where the classifier did not look", () => {
    const record = buildCall((call) => {
      delete call.effect;
      delete call.outcome;
      delete call.expectedVerifier;
    });
    const gaps = evidenceLayers(record, view(record)).flatMap((layer) => layer.gaps);
    expect(gaps).toEqual([
      "No destination check: nobody has looked whether the write happened.",
      "No outcome receipt: no verifier was declared for this call.",
    ]);
  });

  it("labels an LLM judge's verdict as weak evidence", () => {
    const record = buildCall((call) => {
      if (call.outcome) call.outcome.verifier = "llm_judge";
    });
    const outcome = evidenceLayers(record, view(record)).find((layer) => layer.layer === "outcome");
    expect(outcome?.facts.find((fact) => fact.label === "Verifier")).toMatchObject({ tone: "weak" });
    expect(outcome?.gaps).toEqual(["Only weak evidence: the verdict comes from an LLM judge."]);
  });
});

describe("evidence layers: a layer the reporter did not see (contract v1.2)", () => {
  const layersOf = (record: Parameters<typeof classify>[0]) => evidenceLayers(record, view(record));

  it("a sampled trace without initialize: the session is not observed, every other layer passed", () => {
    const record = build(handshakeUnseen);
    expect(statuses(record)).toEqual({
      session: "not_observed",
      catalog: "ok",
      request: "ok",
      effect: "ok",
      outcome: "ok",
    });
    const session = layersOf(record).find((layer) => layer.layer === "session");
    // No "handshake never finished": it was not seen, not missing.
    expect(session?.gaps).toEqual([]);
    expect(session?.unseen?.toSee).toContain("initialize span");
    expect(session?.reasons).toEqual(["session.not_observed"]);
    expect(session?.facts.find((fact) => fact.label === "Initialized")).toMatchObject({
      value: "not observed",
      tone: "muted",
    });
  });

  it("an unseen tool list is not 'never read', and says what would show it", () => {
    const record = buildCall((call, r) => {
      catalogUnseen(r);
      if (call.outcome) call.outcome.verifier = "llm_judge";
    });
    const layers = layersOf(record);
    expect(statuses(record)).toMatchObject({ catalog: "not_observed", outcome: "ok" });
    const catalog = layers.find((layer) => layer.layer === "catalog");
    expect(catalog?.gaps).toEqual([]);
    expect(catalog?.unseen?.toSee).toContain("tools/list");
    expect(layers.flatMap((layer) => layer.gaps)).not.toContain("The tool list was never read.");
  });

  it("a seen rule that decided in an unseen session still failed there; an unseen catalog after it is not observed", () => {
    const record = build((r) => {
      onlyCallSeen(r);
      r.session.auth = { challenge: { status: 401, at: t(-10) } };
    });
    const session = layersOf(record).find((layer) => layer.layer === "session");
    expect(session).toMatchObject({ status: "failed", deciding: true });
    expect(session?.unseen).toBeDefined();
    expect(statuses(record)).toMatchObject({ catalog: "not_observed", request: "not_reached" });
  });

  it("a failure in a seen layer keeps its status; the unseen one stays neutral", () => {
    const record = buildCall((call, r) => {
      handshakeUnseen(r);
      call.response = { at: t(1_000), kind: "result", isError: true };
    });
    expect(statuses(record)).toMatchObject({ session: "not_observed", request: "failed" });
  });
});

describe("operator evidence in force", () => {
  const record = buildCall((call) => {
    call.effect = { checkedAt: t(20_000), status: "unknown" };
  });
  it("an operator's newer check stands in for the record's", () => {
    const effect = effectiveEffect(record, [
      { status: "absent", receipt: null, checkedAt: t(90_000), actor: "ana" },
    ]);
    expect(effect).toMatchObject({ status: "absent", recordedBy: "ana" });
  });
  it("the record's own newer check wins", () => {
    const effect = effectiveEffect(record, [
      { status: "absent", receipt: null, checkedAt: t(10_000), actor: "ana" },
    ]);
    expect(effect).toMatchObject({ status: "unknown" });
    expect(effect).not.toHaveProperty("recordedBy");
  });
});

describe("progress against both clocks", () => {
  it("marks ignored progress with why (wrong token, not increasing, after the response)", () => {
    const record = buildCall((call) => {
      call.progress = [
        { at: t(200), token: "pt-1", progress: 10 },
        { at: t(300), token: "other", progress: 20 },
        { at: t(400), token: "pt-1", progress: 10 },
        { at: t(2_000), token: "pt-1", progress: 30 },
      ];
    });
    if (!record.call) throw new Error("call");
    const timeline = progressTimeline(record.call, record.observedAt);
    expect(timeline.points.map((p) => p.ignoredBecause)).toEqual([
      null,
      "another progress token",
      "progress did not increase",
      "after the final response",
    ]);
    expect(timeline.lastActivityOffsetMs).toBe(200);
    expect(timeline.responseOffsetMs).toBe(1_000);
    expect(timeline.finishedOffsetMs).toBe(1_000);
  });
});
