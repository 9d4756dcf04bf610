// Alert lifecycle per chain (open/resolve on state change) and the per-alert routing decision the
// delivery worker uses.
import { describe, expect, it } from "vitest";
import { alertsForChain } from "@/lib/routing/alerts";
import { compileRouting } from "@/lib/routing/compile";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { evaluateAlert } from "@/lib/routing/evaluate";
import { diffChainAlerts } from "@/lib/routing/lifecycle";
import { SAMPLE_CHAIN_ID, sampleNotification } from "@/lib/routing/sample-notification";
import { compileSilence } from "@/lib/routing/silence";
import type { ClassifiedChain, Layer, State } from "@/lib/routing/types";

const chain = (
  state: State,
  layer: Layer,
  reasons: string[],
  extra: Partial<ClassifiedChain> = {},
): ClassifiedChain => ({
  chainId: "c1",
  sessionId: "s1",
  state,
  layer,
  reasons,
  server: "fs",
  labels: {},
  ...extra,
});
const fps = (state: State) => alertsForChain(chain(state, "request", ["x"]))[0]?.fingerprint;

describe("diffChainAlerts", () => {
  type Case = {
    name: string;
    before: ClassifiedChain;
    after: ClassifiedChain;
    opened: string[];
    resolved: string[];
    changed: boolean[];
  };
  const cases: Case[] = [
    {
      name: "tool_failed → healthy resolves the alert",
      before: chain("tool_failed", "request", ["request.tool_error"]),
      after: chain("healthy", "outcome", ["outcome.verified"]),
      opened: [],
      resolved: ["tool_failed"],
      changed: [],
    },
    {
      name: "needs_auth → tool_failed resolves one and opens the other",
      before: chain("needs_auth", "session", ["auth.challenge_unresolved"]),
      after: chain("tool_failed", "request", ["request.tool_error"]),
      opened: ["tool_failed"],
      resolved: ["needs_auth"],
      changed: [],
    },
    {
      name: "same state, new reason: continues, marked changed",
      before: chain("tool_failed", "request", ["request.tool_error"]),
      after: chain("tool_failed", "request", ["request.server_error"]),
      opened: [],
      resolved: [],
      changed: [true],
    },
    {
      name: "a shadowed effect_unknown surfacing as headline continues the same alert",
      before: chain("needs_auth", "session", ["auth.challenge_unresolved"], {
        shadowed: { state: "effect_unknown", reason: "effect.unreconciled" },
      }),
      after: chain("effect_unknown", "effect", ["effect.unreconciled"]),
      opened: [],
      resolved: ["needs_auth"],
      changed: [false],
    },
  ];
  it.each(cases)("$name", ({ before, after, opened, resolved, changed }) => {
    const diff = diffChainAlerts(alertsForChain(before), alertsForChain(after));
    expect(diff.opened.map((a) => a.state)).toEqual(opened);
    expect(diff.resolved).toEqual(resolved.map((s) => fps(s as State)));
    expect(diff.continuing.map((c) => c.changed)).toEqual(changed);
  });
});

describe("evaluateAlert", () => {
  const compiled = compileRouting(DEFAULT_ROUTING_CONFIG);
  const NOW = Date.parse("2026-11-30T11:00:00.000Z");
  it("gives routes with group keys, and the silence that holds the alert back", () => {
    const [alert] = alertsForChain(chain("tool_failed", "request", ["request.tool_error"]));
    if (!alert) throw new Error("expected an alert");
    const silence = compileSilence({
      id: "m",
      matchers: ['server="fs"'],
      startsAt: "2026-11-30T10:00:00.000Z",
      endsAt: "2026-11-30T12:00:00.000Z",
      createdBy: "a",
      comment: "c",
    });
    const open = evaluateAlert(compiled, alert, NOW);
    expect(open.notifies).toBe(true);
    expect(open.routes.map((r) => r.groupKey)).toEqual([
      'tool-failed/tool-owner:{server="fs",state="tool_failed"}',
    ]);
    const held = evaluateAlert(compiled, alert, NOW, { extraSilences: [silence] });
    expect([held.notifies, held.silence?.id]).toEqual([false, "m"]);
  });
});

describe("sampleNotification", () => {
  it("is a clearly labelled, low-severity test alert", () => {
    const n = sampleNotification("ops", "2026-11-30T10:00:00.000Z");
    expect(n.alerts[0]).toMatchObject({
      status: "firing",
      severity: "low",
      alert: { chainId: SAMPLE_CHAIN_ID },
    });
  });
});
