// Config validation: valid and invalid fixtures side by side (tests/fixtures/routing), one row each.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadRoutingConfig } from "@/lib/routing/compile";
import { maskSecrets, PAGERDUTY_EVENTS_URL } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { formatDuration, parseDuration } from "@/lib/routing/duration";
import { validateRoutingConfig } from "@/lib/routing/validate";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/routing/${name}`, import.meta.url), "utf8"));

type InvalidCase = { file: string; expected: Array<{ path: string; code: string }> };

const invalid: InvalidCase[] = [
  {
    file: "invalid-unknown-receiver.json",
    expected: [{ path: "$.route.routes[0].receiver", code: "unknown_receiver" }],
  },
  {
    file: "invalid-bad-regex.json",
    expected: [{ path: "$.route.routes[0].matchers[0]", code: "invalid_regex" }],
  },
  {
    file: "invalid-interval-order.json",
    expected: [
      { path: "$.route.routes[0].groupWait", code: "interval_order" },
      { path: "$.route.routes[0].groupInterval", code: "interval_order" },
    ],
  },
  { file: "invalid-root-matchers.json", expected: [{ path: "$.route.matchers", code: "root_has_matchers" }] },
  {
    file: "invalid-root-without-receiver.json",
    expected: [{ path: "$.route.receiver", code: "root_without_receiver" }],
  },
  {
    file: "invalid-inhibits-effect-unknown.json",
    expected: [{ path: "$.inhibitRules[0].targetMatchers", code: "inhibits_protected_state" }],
  },
  {
    file: "invalid-matcher-syntax.json",
    expected: [
      { path: "$.route.routes[0].matchers[0]", code: "invalid_matcher" },
      { path: "$.route.routes[0].matchers[1]", code: "unknown_label" },
      { path: "$.route.routes[0].matchers[2]", code: "unknown_value" },
    ],
  },
  {
    file: "invalid-shape.json",
    expected: [
      { path: "$.channels[0].targets[0].url", code: "invalid_format" },
      { path: "$.channels[0].targets[0].secret", code: "too_small" },
      { path: "$.route.groupWait", code: "invalid_format" },
      { path: "$.route", code: "unrecognized_keys" },
    ],
  },
  {
    file: "invalid-silence-window.json",
    expected: [{ path: "$.silences[0].endsAt", code: "silence_window" }],
  },
];

describe("routing config validation", () => {
  it.each(["valid-minimal.json", "valid-team-tree.json"])("accepts %s", (file) => {
    const result = loadRoutingConfig(fixture(file));
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it.each(invalid)("rejects $file", ({ file, expected }) => {
    const result = validateRoutingConfig(fixture(file));
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors.map(({ path, code }) => ({ path, code }))).toEqual(expect.arrayContaining(expected));
    expect(errors).toHaveLength(expected.length);
    for (const error of errors) expect(error.message.length).toBeGreaterThan(0);
  });

  it("the shipped defaults are valid and survive a JSON export/import round trip", () => {
    const exported = JSON.stringify(DEFAULT_ROUTING_CONFIG);
    const result = validateRoutingConfig(JSON.parse(exported));
    expect(result.ok ? result.config : result.errors).toEqual(DEFAULT_ROUTING_CONFIG);
  });

  it("applies the PagerDuty events URL default and lets tests override it", () => {
    const result = validateRoutingConfig(fixture("valid-team-tree.json"));
    if (!result.ok) throw new Error("fixture must be valid");
    const pd = result.config.channels[1]?.targets[0];
    expect(pd).toMatchObject({ type: "pagerduty", url: PAGERDUTY_EVENTS_URL });
  });

  it("masks every secret for display", () => {
    const result = validateRoutingConfig(fixture("valid-team-tree.json"));
    if (!result.ok) throw new Error("fixture must be valid");
    const masked = JSON.stringify(maskSecrets(result.config));
    for (const secret of ["0123456789abcdef0123", "R0UTINGKEY0000000000000000000000", "T000/B000/XXXX"]) {
      expect(masked).not.toContain(secret);
    }
  });

  it("reports a groupBy on an unknown label and a delay beyond the 24h bound", () => {
    const result = validateRoutingConfig({
      version: 1,
      channels: [{ name: "ops", ownerRole: "ops", targets: [] }],
      route: {
        receiver: "ops",
        groupBy: ["srv"],
        routes: [{ matchers: ['state="tool_failed"'], delay: "2d" }, { confirmOnNextRecord: true }],
      },
    });
    expect(result.ok ? [] : result.errors.map((e) => e.code)).toEqual([
      "unknown_label",
      "delay_too_long",
      "confirm_without_delay",
    ]);
  });
});

describe("durations", () => {
  type Case = { text: string; ms: number | null };
  const cases: Case[] = [
    { text: "30s", ms: 30_000 },
    { text: "5m", ms: 300_000 },
    { text: "4h", ms: 14_400_000 },
    { text: "1h30m", ms: 5_400_000 },
    { text: "250ms", ms: 250 },
    { text: "0s", ms: 0 },
    { text: "30m1h", ms: null },
    { text: "5 m", ms: null },
    { text: "", ms: null },
  ];
  it.each(cases)("parseDuration($text) = $ms", ({ text, ms }) => expect(parseDuration(text)).toBe(ms));
  it("formats back", () => expect(formatDuration(5_400_250)).toBe("1h30m250ms"));
});
