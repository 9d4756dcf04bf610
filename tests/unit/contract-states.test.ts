import { describe, expect, it } from "vitest";
import { isState, STATE_SEVERITY_ORDER, STATES, worstState } from "@/lib/contract/states";
import { parseTimestamp } from "@/lib/contract/timestamp";

describe("states", () => {
  it("has the ten states, and the severity order is a permutation of them", () => {
    expect(STATES).toHaveLength(10);
    expect([...STATE_SEVERITY_ORDER].sort()).toEqual([...STATES].sort());
  });

  it("orders the most dangerous first", () => {
    expect(STATE_SEVERITY_ORDER).toEqual([
      "effect_unknown",
      "false_success",
      "needs_auth",
      "incompatible_session",
      "stale_catalog",
      "protocol_error",
      "tool_failed",
      "unverified",
      "working",
      "healthy",
    ]);
  });

  it.each([
    [["healthy", "working"], "working"],
    [["healthy", "unverified", "working"], "unverified"],
    [["tool_failed", "needs_auth", "healthy"], "needs_auth"],
    [["false_success", "effect_unknown"], "effect_unknown"],
    [["healthy"], "healthy"],
    [[], undefined],
  ] as const)("worstState(%j) = %s", (states, expected) => {
    expect(worstState(states)).toBe(expected);
  });

  it("isState", () => {
    expect(isState("healthy")).toBe(true);
    expect(isState("green")).toBe(false);
    expect(isState(undefined)).toBe(false);
  });
});

describe("parseTimestamp", () => {
  it.each([
    ["2026-11-30T10:00:00.000Z", Date.UTC(2026, 10, 30, 10)],
    ["2026-11-30T10:00:00Z", Date.UTC(2026, 10, 30, 10)],
    ["2026-11-30T11:30:00+01:30", Date.UTC(2026, 10, 30, 10)],
    ["2026-11-30T05:00:00-05:00", Date.UTC(2026, 10, 30, 10)],
    ["2026-11-30t10:00:00z", Date.UTC(2026, 10, 30, 10)],
    ["2026-11-30T10:00:00.1234567Z", Date.UTC(2026, 10, 30, 10, 0, 0, 123)],
    ["2026-11-30T10:00:00.5Z", Date.UTC(2026, 10, 30, 10, 0, 0, 500)],
    ["2024-02-29T00:00:00Z", Date.UTC(2024, 1, 29)],
    ["2000-02-29T00:00:00Z", Date.UTC(2000, 1, 29)],
  ])("%s", (text, expected) => {
    expect(parseTimestamp(text)).toBe(expected);
  });

  it.each([
    "2026-11-30T10:00:00",
    "2026-11-30T10:00Z",
    "2026-11-30",
    "2026-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-11-30T23:59:60Z",
    "2026-11-30T10:00:00+24:00",
    "2026-11-30T10:00:00.Z",
    " 2026-11-30T10:00:00Z",
  ])("rejects %s", (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });
});
