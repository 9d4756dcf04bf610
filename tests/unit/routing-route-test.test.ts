// The route test: which channels a chain reaches, and why (matched path, matchers, silences,
// inhibition).
import { describe, expect, it } from "vitest";
import { alertsForChain } from "@/lib/routing/alerts";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { explainRouting } from "@/lib/routing/route-test";
import type { ClassifiedChain } from "@/lib/routing/types";

const NOW = Date.parse("2026-11-30T11:00:00.000Z");
const toolFailed: ClassifiedChain = {
  chainId: "c-tool",
  sessionId: "s1",
  state: "tool_failed",
  layer: "request",
  reasons: ["request.tool_error"],
  retrySafe: false,
  server: "fs",
  tool: "write_file",
  labels: { team: "payments" },
};
const needsAuth: ClassifiedChain = {
  ...toolFailed,
  chainId: "c-auth",
  state: "needs_auth",
  layer: "session",
  reasons: ["auth.challenge_unresolved"],
};
const maintenance = {
  id: "maint",
  matchers: ['server="fs"'],
  startsAt: "2026-11-30T10:00:00.000Z",
  endsAt: "2026-11-30T12:00:00.000Z",
  createdBy: "alice",
  comment: "fs upgrade",
};

describe("explainRouting", () => {
  it("names the route, the matchers and the channel", () => {
    const result = explainRouting(DEFAULT_ROUTING_CONFIG, toolFailed, NOW);
    expect(result.channels).toEqual(["tool-owner"]);
    expect(result.alerts[0]).toMatchObject({
      state: "tool_failed",
      notifies: true,
      routes: [
        {
          receiver: "tool-owner",
          routePath: "$.route.routes[5]",
          routeName: "tool failed",
          matchedBecause: ['state="tool_failed"'],
          ownerRole: "tool owner",
          targetTypes: [],
          delivered: false,
          groupKey: 'tool-failed/tool-owner:{server="fs",state="tool_failed"}',
        },
      ],
    });
    expect(result.explanation[0]).toContain(
      "tool_failed → tool-owner (recorded, not delivered: no target) via tool failed",
    );
    expect(result.undelivered).toEqual(["tool-owner"]);
  });

  it("counts a channel with a target as delivered", () => {
    const config = structuredClone(DEFAULT_ROUTING_CONFIG);
    const toolOwner = config.channels.find((c) => c.name === "tool-owner");
    toolOwner?.targets.push({ type: "slack", url: "https://hooks.slack.example/T1" });
    const result = explainRouting(config, toolFailed, NOW);
    expect(result.channels).toEqual(["tool-owner"]);
    expect(result.undelivered).toEqual([]);
    expect(result.alerts[0]?.routes[0]).toMatchObject({ delivered: true, targetTypes: ["slack"] });
    expect(result.explanation[0]).toContain("tool_failed → tool-owner (slack) via tool failed");
  });

  it("reports a silence and drops the channel", () => {
    const result = explainRouting(DEFAULT_ROUTING_CONFIG, toolFailed, NOW, { silences: [maintenance] });
    expect(result.alerts[0]?.silencedBy).toEqual({
      id: "maint",
      createdBy: "alice",
      comment: "fs upgrade",
      endsAt: "2026-11-30T12:00:00.000Z",
    });
    expect(result.channels).toEqual([]);
  });

  it("reports inhibition by a firing needs_auth on the same server", () => {
    const result = explainRouting(DEFAULT_ROUTING_CONFIG, toolFailed, NOW, {
      firingAlerts: alertsForChain(needsAuth),
    });
    expect(result.alerts[0]?.inhibitedBy).toMatchObject({
      ruleIndex: 0,
      ruleName: "needs_auth first",
      sourceChainId: "c-auth",
      sourceState: "needs_auth",
    });
    expect(result.channels).toEqual([]);
  });

  it("a shadowed effect_unknown still reaches its channels while the headline is silenced", () => {
    const chain: ClassifiedChain = {
      ...needsAuth,
      shadowed: { state: "effect_unknown", reason: "effect.unreconciled" },
    };
    const result = explainRouting(DEFAULT_ROUTING_CONFIG, chain, NOW, { silences: [maintenance] });
    expect(result.alerts.map((a) => [a.state, a.notifies])).toEqual([
      ["needs_auth", false],
      ["effect_unknown", true],
    ]);
    expect(result.channels).toEqual(["reconciliation", "integration-owner"]);
    expect(
      result.explanation.some((line) =>
        line.startsWith("effect_unknown (shadowed by needs_auth) → reconciliation"),
      ),
    ).toBe(true);
  });

  it("says why a quiet chain reaches nobody", () => {
    const result = explainRouting(
      DEFAULT_ROUTING_CONFIG,
      { ...toolFailed, state: "unverified", layer: "outcome", reasons: ["outcome.no_receipt"] },
      NOW,
    );
    expect(result.alerts).toEqual([]);
    expect(result.quiet).toMatch(/coverage page/);
  });
});
