// The alerts page's pure decisions: an alert's delivery status, group keys read back, and the silence preview
// (the protected-state rule included).
import { describe, expect, it } from "vitest";
import {
  alertDeliveryStatus,
  equalityLabels,
  latestNotification,
  matchersForLabels,
  parseGroupKey,
  previewSilence,
} from "@/lib/routing/alert-workspace";
import { groupKey } from "@/lib/routing/group";
import { mustParseMatcher } from "@/lib/routing/matcher";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const base = { firing: true, silenced: false, inhibited: false, channelHasTargets: true };
const delivery = (status: string, attempts = 1, createdAt = 1) => ({ status, attempts, createdAt });

describe("alertDeliveryStatus", () => {
  it("says muted before anything a delivery says", () => {
    expect(
      alertDeliveryStatus({ ...base, silenced: true, inhibited: true, latest: [delivery("dead")] }),
    ).toBe("silenced");
    expect(alertDeliveryStatus({ ...base, inhibited: true, latest: [] })).toBe("inhibited");
  });

  it("does not call a resolved alert silenced: it is no longer muted, its resolution was told or not", () => {
    expect(
      alertDeliveryStatus({ ...base, firing: false, silenced: true, latest: [delivery("delivered")] }),
    ).toBe("delivered");
  });

  it("tells a channel with no target from a group still waiting", () => {
    expect(alertDeliveryStatus({ ...base, channelHasTargets: false, latest: [] })).toBe("no_target");
    expect(alertDeliveryStatus({ ...base, latest: [] })).toBe("waiting");
  });

  it("takes the worst target of the latest notification", () => {
    const latest = [delivery("delivered"), delivery("pending", 2), delivery("dead", 8)];
    expect(alertDeliveryStatus({ ...base, latest })).toBe("failed");
    expect(alertDeliveryStatus({ ...base, latest: latest.slice(0, 2) })).toBe("retrying");
    expect(alertDeliveryStatus({ ...base, latest: [delivery("pending", 0)] })).toBe("sending");
    expect(alertDeliveryStatus({ ...base, latest: [delivery("delivered")] })).toBe("delivered");
  });

  it("reads only the newest notification: an old dead letter does not stain a later success", () => {
    const latest = latestNotification([delivery("dead", 8, 100), delivery("delivered", 1, 200)]);
    expect(latest).toEqual([delivery("delivered", 1, 200)]);
  });
});

describe("parseGroupKey", () => {
  it("reads back what groupKey writes, quotes and commas in values included", () => {
    const labels = { chain: 'c-1,"x"', state: "effect_unknown", server: "a=b" };
    const key = groupKey(
      { routeId: "pager", receiver: "on-call", groupBy: ["chain", "state", "server"] },
      labels,
    );
    expect(parseGroupKey(key)).toEqual({ routeId: "pager", receiver: "on-call", labels });
  });

  it("reads a group without labels, and refuses what is not a group key", () => {
    expect(parseGroupKey("r~abc/ops:{}")).toEqual({ routeId: "r~abc", receiver: "ops", labels: {} });
    expect(parseGroupKey("test:ops")).toBeNull();
    expect(parseGroupKey('r/ops:{chain="x" junk}')).toBeNull();
  });
});

describe("previewSilence", () => {
  const alert = (fingerprint: string, state: string, server: string) => ({
    fingerprint,
    state,
    labels: { state, server, chain: fingerprint },
  });
  const firing = [
    alert("a", "needs_auth", "billing"),
    alert("b", "effect_unknown", "billing"),
    alert("c", "needs_auth", "search"),
  ];

  it("mutes what the matchers match, and keeps a protected alert its silence does not name", () => {
    const preview = previewSilence([mustParseMatcher('server="billing"')], firing, NOW);
    expect(preview.muted.map((a) => a.fingerprint)).toEqual(["a"]);
    expect(preview.keptProtected.map((a) => a.fingerprint)).toEqual(["b"]);
  });

  it("mutes a protected alert once the silence names its state with an equality matcher", () => {
    const named = previewSilence(
      [mustParseMatcher('server="billing"'), mustParseMatcher('state="effect_unknown"')],
      firing,
      NOW,
    );
    expect(named.muted.map((a) => a.fingerprint)).toEqual(["b"]);
    expect(named.keptProtected).toEqual([]);
    const regex = previewSilence([mustParseMatcher('state=~"effect_.*"')], firing, NOW);
    expect(regex.muted).toEqual([]);
    expect(regex.keptProtected.map((a) => a.fingerprint)).toEqual(["b"]);
  });

  it("prefills matchers from an alert's labels, skipping empty ones, that match that alert", () => {
    const labels = { state: "needs_auth", server: "billing", chain: "c-9", reason: "" };
    const texts = matchersForLabels(labels, ["state", "server", "chain", "reason"]);
    expect(texts).toEqual(['state="needs_auth"', 'server="billing"', 'chain="c-9"']);
    const matchers = texts.map(mustParseMatcher);
    expect(
      previewSilence(matchers, [{ fingerprint: "x", state: "needs_auth", labels }], NOW).muted,
    ).toHaveLength(1);
    expect(equalityLabels([...matchers, mustParseMatcher('tool=~"w.*"')])).toEqual({
      state: "needs_auth",
      server: "billing",
      chain: "c-9",
    });
  });
});
