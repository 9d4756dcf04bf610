// A config version saved before a save-time rule existed keeps loading as it routed then, instead of the whole
// config falling back to the shipped default; a new save is still refused.
import { describe, expect, it } from "vitest";
import { loadRoutingConfig } from "@/lib/routing/compile";
import { evaluateAlert } from "@/lib/routing/evaluate";
import type { Alert } from "@/lib/routing/types";

const saved = {
  version: 1,
  channels: [
    { name: "ops", ownerRole: "ops", targets: [] },
    {
      name: "pager",
      ownerRole: "on-call",
      targets: [{ type: "pagerduty", routingKey: "short-key", url: "http://127.0.0.1:9/pd" }],
    },
  ],
  route: {
    receiver: "ops",
    routes: [
      { id: "typo", matchers: ['state=~"tool_faild"'], receiver: "pager" },
      { id: "failed", matchers: ['state="tool_failed"'], receiver: "pager" },
    ],
  },
};

const alert: Alert = {
  fingerprint: "0123456789abcdef",
  chainId: "chain:a",
  sessionId: "sess:a",
  state: "tool_failed",
  layer: "request",
  reasons: ["request.tool_error"],
  severity: "warning",
  labels: { state: "tool_failed", layer: "request", severity: "warning", chain: "chain:a" },
};

describe("save-time rules", () => {
  it("refuse a new save: the never-matching regex and the short routing key, each at its path", () => {
    const result = loadRoutingConfig(saved);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.code, e.path])).toEqual(
      expect.arrayContaining([
        ["never_matches", "$.route.routes[0].matchers[0]"],
        ["invalid_routing_key", "$.channels[1].targets[0].routingKey"],
      ]),
    );
  });

  it("do not stop a stored version from loading; its typo route matches nothing, the next one still routes", () => {
    const result = loadRoutingConfig(saved, { stored: true });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const decision = evaluateAlert(result.compiled, alert, Date.now(), {});
    expect(decision.routes.map((r) => r.receiver)).toEqual(["pager"]);
    expect(decision.routes[0]?.groupKey.startsWith("failed/pager:")).toBe(true);
  });

  it("still refuse a stored version with a problem of another kind", () => {
    const broken = { ...saved, route: { ...saved.route, receiver: "nobody" } };
    const result = loadRoutingConfig(broken, { stored: true });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.code)).toContain("unknown_receiver");
  });
});
