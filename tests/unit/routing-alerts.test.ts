// From a classified chain to its alerts: labels, fingerprints, severities, shadowed alerts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alertLabelsFor, alertsForChain, layerOfReason } from "@/lib/routing/alerts";
import { alertFingerprint, fnv1a64 } from "@/lib/routing/fingerprint";
import type { ClassifiedChain } from "@/lib/routing/types";

const base: ClassifiedChain = {
  chainId: "chain-1",
  sessionId: "sess-1",
  state: "tool_failed",
  layer: "request",
  reasons: ["request.tool_error", "request.progress_inconsistent"],
  retrySafe: false,
  server: "fs",
  client: "agent",
  tool: "write_file",
  transport: "stdio",
  labels: { team: "payments", env: "prod" },
};

describe("alertLabelsFor", () => {
  it("derives the matchable labels from the chain", () => {
    expect(alertLabelsFor(base)).toEqual({
      state: "tool_failed",
      layer: "request",
      reason: "request.tool_error",
      severity: "warning",
      chain: "chain-1",
      server: "fs",
      client: "agent",
      tool: "write_file",
      transport: "stdio",
      "label.team": "payments",
      "label.env": "prod",
    });
  });

  it("omits labels the chain has no evidence for", () => {
    const labels = alertLabelsFor({
      ...base,
      server: undefined,
      tool: undefined,
      transport: undefined,
      labels: {},
    });
    expect(Object.keys(labels).sort()).toEqual(["chain", "client", "layer", "reason", "severity", "state"]);
  });

  it("namespaces record labels so a record cannot spoof a built-in", () => {
    const labels = alertLabelsFor({ ...base, labels: { state: "healthy" } });
    expect(labels.state).toBe("tool_failed");
    expect(labels["label.state"]).toBe("healthy");
  });
});

describe("fingerprints", () => {
  it("FNV-1a 64 matches the reference vectors", () => {
    expect(fnv1a64("")).toBe("cbf29ce484222325");
    expect(fnv1a64("a")).toBe("af63dc4c8601ec8c");
    expect(fnv1a64("foobar")).toBe("85944171f73967e8");
  });

  it("equals the 64-bit BigInt definition on any text (stored fingerprints must not change)", () => {
    const reference = (text: string) => {
      let hash = 0xcbf29ce484222325n;
      for (const byte of new TextEncoder().encode(text))
        hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & (2n ** 64n - 1n);
      return hash.toString(16).padStart(16, "0");
    };
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), (text) => fnv1a64(text) === reference(text)),
    );
    expect(fnv1a64("chain:é\u0000false_success")).toBe(reference("chain:é\u0000false_success"));
  });

  it("is stable per (chain, state) and independent of reasons", () => {
    const [a] = alertsForChain(base);
    const [b] = alertsForChain({ ...base, reasons: ["request.server_error"] });
    expect(a?.fingerprint).toBe(b?.fingerprint);
    expect(a?.fingerprint).toBe(alertFingerprint("chain-1", "tool_failed"));
    expect(alertFingerprint("chain-1", "effect_unknown")).not.toBe(a?.fingerprint);
    expect(alertFingerprint("chain-2", "tool_failed")).not.toBe(a?.fingerprint);
  });

  it("a shadowed effect_unknown keeps its fingerprint when it later becomes the headline", () => {
    const behind = alertsForChain({
      ...base,
      state: "needs_auth",
      layer: "session",
      reasons: ["auth.challenge_unresolved"],
      shadowed: { state: "effect_unknown", reason: "effect.unreconciled" },
    });
    const headline = alertsForChain({
      ...base,
      state: "effect_unknown",
      layer: "effect",
      reasons: ["effect.unreconciled"],
    });
    expect(behind[1]?.fingerprint).toBe(headline[0]?.fingerprint);
  });
});

describe("alertsForChain", () => {
  it("a shadowed alert carries its own state, reason, layer and a shadowed_by label", () => {
    const alerts = alertsForChain({
      ...base,
      state: "needs_auth",
      layer: "session",
      reasons: ["auth.challenge_unresolved"],
      shadowed: { state: "false_success", reason: "outcome.verifier_failed" },
    });
    expect(alerts.map((a) => [a.state, a.layer, a.reasons, a.severity, a.shadowedBy])).toEqual([
      ["needs_auth", "session", ["auth.challenge_unresolved"], "high", undefined],
      ["false_success", "outcome", ["outcome.verifier_failed"], "critical", "needs_auth"],
    ]);
    expect(alerts[1]?.labels).toMatchObject({
      state: "false_success",
      reason: "outcome.verifier_failed",
      shadowed_by: "needs_auth",
    });
  });

  it("url elicitation is a low-severity notice", () => {
    const [alert] = alertsForChain({
      ...base,
      state: "needs_auth",
      layer: "session",
      reasons: ["auth.url_elicitation_required"],
    });
    expect(alert?.severity).toBe("low");
  });

  it.each([
    ["auth.challenge_unresolved", "session"],
    ["session.no_answer", "session"],
    ["catalog.expired", "catalog"],
    ["task.failed", "request"],
    ["effect.absent", "effect"],
    ["chain.no_call", "outcome"],
  ] as const)("layerOfReason(%s) = %s", (reason, layer) =>
    expect(layerOfReason(reason, "request")).toBe(layer),
  );
});

describe("contract v1.2: a layer not observed never pages", () => {
  it("a chain that is unverified only because a layer was not seen raises no alert", () => {
    for (const reasons of [
      ["session.not_observed"],
      ["catalog.not_observed"],
      ["session.not_observed", "catalog.not_observed"],
    ]) {
      const layer = reasons[0]?.startsWith("session") ? "session" : "catalog";
      expect(alertsForChain({ ...base, state: "unverified", layer, reasons })).toEqual([]);
    }
  });

  it("a seen failure alerts as ever, its deciding reason the label; the unseen layer rides along on the path", () => {
    const [alert, ...rest] = alertsForChain({
      ...base,
      reasons: ["request.tool_error", "session.not_observed", "catalog.not_observed"],
    });
    expect(rest).toEqual([]);
    expect(alert?.labels).toMatchObject({
      state: "tool_failed",
      reason: "request.tool_error",
      layer: "request",
    });
    expect(alert?.reasons).toEqual(["request.tool_error", "session.not_observed", "catalog.not_observed"]);
  });

  it("the layer of a not-observed code follows its prefix", () => {
    expect(layerOfReason("session.not_observed", "outcome")).toBe("session");
    expect(layerOfReason("catalog.not_observed", "outcome")).toBe("catalog");
  });
});
