// Issue 6's default table, one row per line: which channels each state reaches with the shipped
// config, at what severity, after what bounded wait.
import { describe, expect, it } from "vitest";
import { compileRouting } from "@/lib/routing/compile";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { explainRouting } from "@/lib/routing/route-test";
import type { ClassifiedChain, Layer, State } from "@/lib/routing/types";

const compiled = compileRouting(DEFAULT_ROUTING_CONFIG);
const NOW = Date.parse("2026-11-30T10:00:00.000Z");

function chain(
  state: State,
  layer: Layer,
  reason: string,
  extra: Partial<ClassifiedChain> = {},
): ClassifiedChain {
  return {
    chainId: "c1",
    sessionId: "s1",
    state,
    layer,
    reasons: [reason],
    server: "srv",
    tool: "t",
    labels: {},
    ...extra,
  };
}

type Expected = { state: State; receivers: string[]; severity: string; delayMs?: number };
type Case = { row: string; chain: ClassifiedChain; alerts: Expected[] };

const MIN = 60_000;
const cases: Case[] = [
  {
    row: "needs_auth → credentials owner",
    chain: chain("needs_auth", "session", "auth.challenge_unresolved"),
    alerts: [{ state: "needs_auth", receivers: ["credentials-owner"], severity: "high" }],
  },
  {
    row: "auth.url_elicitation_required → low-severity notice to the credentials owner",
    chain: chain("needs_auth", "session", "auth.url_elicitation_required"),
    alerts: [{ state: "needs_auth", receivers: ["credentials-owner"], severity: "low" }],
  },
  {
    row: "incompatible_session → integration owner",
    chain: chain("incompatible_session", "session", "session.version_unsupported"),
    alerts: [{ state: "incompatible_session", receivers: ["integration-owner"], severity: "high" }],
  },
  {
    row: "stale_catalog → integration owner after a 10 min bounded re-discovery",
    chain: chain("stale_catalog", "catalog", "catalog.changed_since_refresh"),
    alerts: [
      { state: "stale_catalog", receivers: ["integration-owner"], severity: "warning", delayMs: 10 * MIN },
    ],
  },
  {
    row: "protocol_error → client implementer",
    chain: chain("protocol_error", "request", "request.caller_error"),
    alerts: [{ state: "protocol_error", receivers: ["client-implementer"], severity: "warning" }],
  },
  {
    row: "tool_failed → tool owner",
    chain: chain("tool_failed", "request", "request.tool_error", { retrySafe: true }),
    alerts: [{ state: "tool_failed", receivers: ["tool-owner"], severity: "warning" }],
  },
  {
    row: "effect_unknown → reconciliation queue + integration owner, critical",
    chain: chain("effect_unknown", "effect", "effect.unreconciled", { retrySafe: false }),
    alerts: [
      { state: "effect_unknown", receivers: ["reconciliation", "integration-owner"], severity: "critical" },
    ],
  },
  {
    row: "false_success → outcome incident, critical",
    chain: chain("false_success", "outcome", "outcome.verifier_failed"),
    alerts: [{ state: "false_success", receivers: ["outcome-incident"], severity: "critical" }],
  },
  {
    row: "unverified outcome.pending → outcome incident after 15 min",
    chain: chain("unverified", "outcome", "outcome.pending"),
    alerts: [
      { state: "unverified", receivers: ["outcome-incident"], severity: "warning", delayMs: 15 * MIN },
    ],
  },
  {
    row: "unverified without a declared verifier → none",
    chain: chain("unverified", "outcome", "outcome.no_receipt"),
    alerts: [],
  },
  {
    row: "unverified verifier unavailable → none",
    chain: chain("unverified", "outcome", "outcome.unavailable"),
    alerts: [],
  },
  {
    row: "unverified chain.no_call → none",
    chain: chain("unverified", "outcome", "chain.no_call"),
    alerts: [],
  },
  { row: "working → none", chain: chain("working", "request", "request.in_flight"), alerts: [] },
  { row: "healthy → none", chain: chain("healthy", "outcome", "outcome.verified"), alerts: [] },
  {
    row: "a shadowed effect_unknown routes like effect_unknown, beside the headline",
    chain: chain("needs_auth", "session", "auth.challenge_unresolved", {
      shadowed: { state: "effect_unknown", reason: "effect.unreconciled" },
    }),
    alerts: [
      { state: "needs_auth", receivers: ["credentials-owner"], severity: "high" },
      { state: "effect_unknown", receivers: ["reconciliation", "integration-owner"], severity: "critical" },
    ],
  },
  {
    row: "a shadowed false_success routes like false_success",
    chain: chain("stale_catalog", "catalog", "catalog.expired", {
      shadowed: { state: "false_success", reason: "outcome.verifier_failed" },
    }),
    alerts: [
      { state: "stale_catalog", receivers: ["integration-owner"], severity: "warning", delayMs: 10 * MIN },
      { state: "false_success", receivers: ["outcome-incident"], severity: "critical" },
    ],
  },
  {
    row: "a shadowed tool_failed adds no alert",
    chain: chain("needs_auth", "session", "auth.challenge_unresolved", {
      shadowed: { state: "tool_failed", reason: "request.server_error" },
    }),
    alerts: [{ state: "needs_auth", receivers: ["credentials-owner"], severity: "high" }],
  },
];

describe("shipped default routing (issue 6 table)", () => {
  it.each(cases)("$row", ({ chain: c, alerts }) => {
    const result = explainRouting(compiled, c, NOW);
    expect(
      result.alerts.map((a) => ({
        state: a.state,
        receivers: a.routes.map((r) => r.receiver),
        severity: a.routes[0]?.severity,
        ...(a.routes[0]?.delayMs ? { delayMs: a.routes[0].delayMs } : {}),
      })),
    ).toEqual(alerts);
    if (alerts.length === 0) expect(result.quiet).toBeDefined();
  });

  it("stale_catalog's wait ends early when the next record is still stale", () => {
    const [alert] = explainRouting(
      compiled,
      chain("stale_catalog", "catalog", "catalog.not_read"),
      NOW,
    ).alerts;
    expect(alert?.routes[0]?.confirmOnNextRecord).toBe(true);
  });

  it("outcome.pending waits on the clock only (a newer pending record does not end the wait)", () => {
    const [alert] = explainRouting(compiled, chain("unverified", "outcome", "outcome.pending"), NOW).alerts;
    expect(alert?.routes[0]?.confirmOnNextRecord).toBe(false);
  });

  it("ships the six owner channels, none with a target yet", () => {
    expect(DEFAULT_ROUTING_CONFIG.channels.map((c) => [c.name, c.targets.length])).toEqual([
      ["credentials-owner", 0],
      ["integration-owner", 0],
      ["client-implementer", 0],
      ["tool-owner", 0],
      ["reconciliation", 0],
      ["outcome-incident", 0],
    ]);
  });
});
