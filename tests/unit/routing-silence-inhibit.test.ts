// Silences (time windows, protected states) and inhibition (needs_auth first, never protected).
import { describe, expect, it } from "vitest";
import { alertsForChain } from "@/lib/routing/alerts";
import { compileRouting } from "@/lib/routing/compile";
import type { TSilence } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import {
  type CompiledInhibitRule,
  compileInhibitRule,
  InhibitionIndex,
  inhibitionSourceLabels,
  inhibitionSourceStates,
  isInhibited,
} from "@/lib/routing/inhibit";
import { compileSilence, isSilenced } from "@/lib/routing/silence";
import type { Alert, ClassifiedChain, Layer, State } from "@/lib/routing/types";

const START = "2026-11-30T10:00:00.000Z";
const END = "2026-11-30T12:00:00.000Z";
const at = (iso: string) => Date.parse(iso);

const silence = (matchers: string[], extra: Partial<TSilence> = {}) =>
  compileSilence({
    id: "s1",
    matchers,
    startsAt: START,
    endsAt: END,
    createdBy: "alice",
    comment: "maintenance",
    ...extra,
  });

describe("isSilenced", () => {
  type Case = {
    name: string;
    matchers: string[];
    labels: Record<string, string>;
    now: string;
    silenced: boolean;
  };
  const cases: Case[] = [
    {
      name: "one ms before startsAt",
      matchers: ['server="a"'],
      labels: { server: "a" },
      now: "2026-11-30T09:59:59.999Z",
      silenced: false,
    },
    {
      name: "exactly at startsAt",
      matchers: ['server="a"'],
      labels: { server: "a" },
      now: START,
      silenced: true,
    },
    {
      name: "inside the window",
      matchers: ['server="a"'],
      labels: { server: "a" },
      now: "2026-11-30T11:00:00.000Z",
      silenced: true,
    },
    {
      name: "one ms before endsAt",
      matchers: ['server="a"'],
      labels: { server: "a" },
      now: "2026-11-30T11:59:59.999Z",
      silenced: true,
    },
    {
      name: "exactly at endsAt (expired)",
      matchers: ['server="a"'],
      labels: { server: "a" },
      now: END,
      silenced: false,
    },
    {
      name: "labels do not match",
      matchers: ['server="a"'],
      labels: { server: "b" },
      now: START,
      silenced: false,
    },
    {
      name: "all matchers must match",
      matchers: ['server="a"', 'tool="t"'],
      labels: { server: "a", tool: "u" },
      now: START,
      silenced: false,
    },
    {
      name: "a broad silence never mutes effect_unknown",
      matchers: ['server="a"'],
      labels: { server: "a", state: "effect_unknown" },
      now: START,
      silenced: false,
    },
    {
      name: "a broad regex silence never mutes false_success",
      matchers: ['state=~".*"'],
      labels: { state: "false_success" },
      now: START,
      silenced: false,
    },
    {
      name: "a silence naming effect_unknown explicitly mutes it (acknowledged incident)",
      matchers: ['chain="c1"', 'state="effect_unknown"'],
      labels: { chain: "c1", state: "effect_unknown" },
      now: START,
      silenced: true,
    },
  ];
  it.each(cases)("$name → $silenced", ({ matchers, labels, now, silenced }) => {
    expect(isSilenced(labels, [silence(matchers)], at(now))).toBe(silenced);
  });
});

function alertOf(state: State, layer: Layer, reason: string, extra: Partial<ClassifiedChain> = {}): Alert {
  const [alert] = alertsForChain({
    chainId: `${state}-${extra.server ?? "srv"}`,
    sessionId: "s",
    state,
    layer,
    reasons: [reason],
    server: "srv",
    labels: {},
    ...extra,
  });
  if (!alert) throw new Error("expected an alert");
  return alert;
}

const defaults: CompiledInhibitRule[] = compileRouting(DEFAULT_ROUTING_CONFIG).inhibitRules;
const needsAuth = alertOf("needs_auth", "session", "auth.challenge_unresolved");

describe("isInhibited (shipped default rule)", () => {
  type Case = { name: string; target: Alert; firing: Alert[]; inhibited: boolean };
  const cases: Case[] = [
    {
      name: "needs_auth inhibits tool_failed on the same server",
      target: alertOf("tool_failed", "request", "request.tool_error"),
      firing: [needsAuth],
      inhibited: true,
    },
    {
      name: "…and stale_catalog",
      target: alertOf("stale_catalog", "catalog", "catalog.expired"),
      firing: [needsAuth],
      inhibited: true,
    },
    {
      name: "not on another server",
      target: alertOf("tool_failed", "request", "request.tool_error", { server: "other" }),
      firing: [needsAuth],
      inhibited: false,
    },
    {
      name: "not when neither has a server (unknown is not equal)",
      target: alertOf("tool_failed", "request", "request.tool_error", { server: undefined }),
      firing: [alertOf("needs_auth", "session", "auth.challenge_unresolved", { server: undefined })],
      inhibited: false,
    },
    {
      name: "not without a firing needs_auth",
      target: alertOf("tool_failed", "request", "request.tool_error"),
      firing: [],
      inhibited: false,
    },
    {
      name: "never effect_unknown",
      target: alertOf("effect_unknown", "effect", "effect.unreconciled"),
      firing: [needsAuth],
      inhibited: false,
    },
    {
      name: "never false_success",
      target: alertOf("false_success", "outcome", "outcome.verifier_failed"),
      firing: [needsAuth],
      inhibited: false,
    },
    {
      name: "a url-elicitation notice does not inhibit the server's failures",
      target: alertOf("tool_failed", "request", "request.tool_error"),
      firing: [alertOf("needs_auth", "session", "auth.url_elicitation_required")],
      inhibited: false,
    },
    {
      name: "needs_auth does not inhibit another needs_auth",
      target: alertOf("needs_auth", "session", "auth.challenge_unresolved", { chainId: "other-chain" }),
      firing: [needsAuth],
      inhibited: false,
    },
  ];
  it.each(cases)("$name", ({ target, firing, inhibited }) => {
    expect(isInhibited(target, firing, defaults)).toBe(inhibited);
    // The worker's pre-indexed form gives the same answer.
    expect(new InhibitionIndex(defaults, firing).find(target) !== undefined).toBe(inhibited);
    // Routing at commit reads only the firing sources that hold one of these label sets: the same answer.
    const sets = inhibitionSourceLabels(defaults, [target]);
    const holding = firing.filter((alert) =>
      sets.some((set) => Object.entries(set).every(([name, value]) => alert.labels[name] === value)),
    );
    expect(new InhibitionIndex(defaults, holding).find(target) !== undefined).toBe(inhibited);
  });

  it("inhibitionSourceLabels: the equal labels of the alerts a rule may inhibit, none for protected states", () => {
    const onServer = (state: State, server: string) =>
      alertOf(state, "request", "request.tool_error", { server, chainId: `${state}-${server}` });
    expect(
      inhibitionSourceLabels(defaults, [
        onServer("tool_failed", "a"),
        onServer("protocol_error", "a"),
        onServer("tool_failed", "b"),
        onServer("effect_unknown", "c"),
        onServer("needs_auth", "d"),
      ]),
    ).toEqual([{ server: "a" }, { server: "b" }]);
    expect(
      inhibitionSourceLabels(defaults, [
        alertOf("tool_failed", "request", "request.tool_error", { server: undefined }),
      ]),
    ).toEqual([]);
    // A rule with no equal labels: every firing source may inhibit, so the one empty set (contained in any labels).
    const anyServer = compileInhibitRule(
      { sourceMatchers: ['state="needs_auth"'], targetMatchers: ['state="tool_failed"'], equal: [] },
      0,
    );
    expect(inhibitionSourceLabels([anyServer], [onServer("tool_failed", "a")])).toEqual([{}]);
  });

  it("refuses protected states at match time even if a rule slipped past validation", () => {
    const reckless = compileInhibitRule(
      { sourceMatchers: ['state="needs_auth"'], targetMatchers: ['server="srv"'], equal: [] },
      0,
    );
    expect(
      isInhibited(alertOf("tool_failed", "request", "request.tool_error"), [needsAuth], [reckless]),
    ).toBe(true);
    expect(
      isInhibited(alertOf("effect_unknown", "effect", "effect.unreconciled"), [needsAuth], [reckless]),
    ).toBe(false);
    expect(isInhibited(alertOf("false_success", "outcome", "effect.absent"), [needsAuth], [reckless])).toBe(
      false,
    );
  });

  it("an alert never inhibits itself when it matches both sides", () => {
    const both = compileInhibitRule(
      { sourceMatchers: ['server="srv"'], targetMatchers: ['state="tool_failed"'], equal: ["server"] },
      0,
    );
    const target = alertOf("tool_failed", "request", "request.tool_error");
    expect(isInhibited(target, [target], [both])).toBe(false);
    expect(new InhibitionIndex([both], [target]).find(target)).toBeUndefined();
  });
});

describe("inhibitionSourceStates: the firing alerts the worker reads as sources", () => {
  const rule = (sourceMatchers: string[]) =>
    compileInhibitRule({ sourceMatchers, targetMatchers: ['state="tool_failed"'], equal: ["server"] }, 0);

  it("is needs_auth alone under the shipped default", () => {
    const rules = DEFAULT_ROUTING_CONFIG.inhibitRules.map(compileInhibitRule);
    expect(inhibitionSourceStates(rules)).toEqual(["needs_auth"]);
  });
  it("is every state a state matcher accepts, across rules", () => {
    expect(
      inhibitionSourceStates([rule(['state=~"protocol_error|needs_auth"']), rule(['state="tool_failed"'])]),
    ).toEqual(["needs_auth", "protocol_error", "tool_failed"]);
    expect(inhibitionSourceStates([rule(['state!="healthy"'])])).not.toContain("healthy");
  });
  it("is every state when a rule's sources are chosen by other labels only", () => {
    expect(inhibitionSourceStates([rule(['server="db"'])])).toHaveLength(10);
  });
  it("is nothing without rules", () => {
    expect(inhibitionSourceStates([])).toEqual([]);
  });
});
