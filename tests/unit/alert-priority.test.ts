import { describe, expect, it } from "vitest";
import { compareAlerts, rankAlertGroups, summarizeGroup } from "@/lib/routing/alert-priority";

// The alerts page's order: loud before muted, firing before resolved, then severity, state danger and age.
const alert = (over: Partial<Parameters<typeof compareAlerts>[0]> & { id: string }) => ({
  severity: "warning",
  state: "tool_failed",
  startsAt: "2026-12-05T10:00:00.000Z",
  status: "firing" as const,
  delivery: "delivered",
  ...over,
});

describe("compareAlerts", () => {
  it("orders loud, then severity, then state danger, then the oldest", () => {
    const list = [
      alert({ id: "muted-critical", severity: "critical", delivery: "silenced" }),
      alert({ id: "low", severity: "low" }),
      alert({ id: "warning-newer", startsAt: "2026-12-05T11:00:00.000Z" }),
      alert({ id: "warning-older" }),
      alert({ id: "warning-effect-unknown", state: "effect_unknown", startsAt: "2026-12-05T12:00:00.000Z" }),
      alert({ id: "critical", severity: "critical", state: "stale_catalog" }),
      alert({ id: "inhibited", delivery: "inhibited" }),
    ];
    expect([...list].sort(compareAlerts).map((a) => a.id)).toEqual([
      "critical",
      "warning-effect-unknown",
      "warning-older",
      "warning-newer",
      "low",
      "muted-critical",
      "inhibited",
    ]);
  });
});

describe("groups", () => {
  it("rank by their worst alert and summarise loud and muted", () => {
    const quiet = { key: "quiet", alerts: [alert({ id: "q", severity: "critical", delivery: "silenced" })] };
    const loud = {
      key: "loud",
      alerts: [
        alert({ id: "l1", severity: "low" }),
        alert({ id: "l2", severity: "high", startsAt: "2026-12-05T09:00:00.000Z" }),
      ],
    };
    const ranked = rankAlertGroups([quiet, loud]);
    expect(ranked.map((g) => g.key)).toEqual(["loud", "quiet"]);
    expect(ranked[0]?.alerts.map((a) => a.id)).toEqual(["l2", "l1"]);
    expect(summarizeGroup(loud.alerts)).toEqual({
      loud: 2,
      muted: 0,
      worstSeverity: "high",
      worstState: "tool_failed",
      oldestLoudAt: "2026-12-05T09:00:00.000Z",
    });
    expect(summarizeGroup(quiet.alerts)).toMatchObject({
      loud: 0,
      muted: 1,
      worstSeverity: "critical",
      oldestLoudAt: null,
    });
  });
});
