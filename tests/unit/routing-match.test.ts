// Route matching semantics (Alertmanager's): inline trees, one row per case.
import { describe, expect, it } from "vitest";
import { type CompiledRoute, loadRoutingConfig } from "@/lib/routing/compile";
import type { TRouteConfig } from "@/lib/routing/config";
import { matchRoutes } from "@/lib/routing/match";
import { matcherMatches, parseMatcher } from "@/lib/routing/matcher";

const CHANNELS = ["root", "a", "b", "c", "d"].map((name) => ({ name, ownerRole: name, targets: [] }));

function compile(route: TRouteConfig): CompiledRoute {
  const loaded = loadRoutingConfig({ version: 1, channels: CHANNELS, route });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.compiled.root;
}

type Case = {
  name: string;
  route: TRouteConfig;
  labels: Record<string, string>;
  /** Expected receivers in order, with the matched route path. */
  expected: Array<[receiver: string, routePath: string]>;
};

const cases: Case[] = [
  {
    name: "no child matches: the root's default receiver",
    route: { receiver: "root", routes: [{ matchers: ['state="tool_failed"'], receiver: "a" }] },
    labels: { state: "needs_auth" },
    expected: [["root", "$.route"]],
  },
  {
    name: "first matching child wins without continue",
    route: {
      receiver: "root",
      routes: [
        { matchers: ['state="tool_failed"'], receiver: "a" },
        { matchers: ['server="s1"'], receiver: "b" },
      ],
    },
    labels: { state: "tool_failed", server: "s1" },
    expected: [["a", "$.route.routes[0]"]],
  },
  {
    name: "continue: true goes on to the next siblings",
    route: {
      receiver: "root",
      routes: [
        { matchers: ['state="effect_unknown"'], receiver: "a", continue: true },
        { matchers: ['state="effect_unknown"'], receiver: "b" },
        { matchers: ['state="effect_unknown"'], receiver: "c" },
      ],
    },
    labels: { state: "effect_unknown" },
    expected: [
      ["a", "$.route.routes[0]"],
      ["b", "$.route.routes[1]"],
    ],
  },
  {
    name: "continue on the last matching child: no fallback to the parent",
    route: {
      receiver: "root",
      routes: [{ matchers: ['state="effect_unknown"'], receiver: "a", continue: true }],
    },
    labels: { state: "effect_unknown" },
    expected: [["a", "$.route.routes[0]"]],
  },
  {
    name: "depth-first: a matching parent with no matching child is the result",
    route: {
      receiver: "root",
      routes: [
        {
          matchers: ['label.team="payments"'],
          receiver: "a",
          routes: [{ matchers: ['state="false_success"'], receiver: "b" }],
        },
        { matchers: ['state="tool_failed"'], receiver: "c" },
      ],
    },
    labels: { "label.team": "payments", state: "tool_failed" },
    expected: [["a", "$.route.routes[0]"]],
  },
  {
    name: "depth-first: the deepest matching node",
    route: {
      receiver: "root",
      routes: [
        {
          matchers: ['label.team="payments"'],
          receiver: "a",
          routes: [{ matchers: ['state="false_success"'], receiver: "b" }],
        },
      ],
    },
    labels: { "label.team": "payments", state: "false_success" },
    expected: [["b", "$.route.routes[0].routes[0]"]],
  },
  {
    name: "a child without receiver inherits its parent's",
    route: {
      receiver: "root",
      routes: [{ matchers: ['server="s1"'], receiver: "a", routes: [{ matchers: ['state="tool_failed"'] }] }],
    },
    labels: { server: "s1", state: "tool_failed" },
    expected: [["a", "$.route.routes[0].routes[0]"]],
  },
];

describe("matchRoutes", () => {
  it.each(cases)("$name", ({ route, labels, expected }) => {
    const matches = matchRoutes(compile(route), labels);
    expect(matches.map((m) => [m.receiver, m.routePath])).toEqual(expected);
  });

  it("inherits groupBy and timings from the parent unless overridden", () => {
    const root = compile({
      receiver: "root",
      groupBy: ["server"],
      groupWait: "10s",
      groupInterval: "2m",
      repeatInterval: "3h",
      routes: [
        {
          matchers: ['server="s1"'],
          receiver: "a",
          routes: [{ matchers: ['tool="t"'], repeatInterval: "6h" }],
        },
      ],
    });
    const [match] = matchRoutes(root, { server: "s1", tool: "t" });
    expect(match).toMatchObject({
      receiver: "a",
      groupBy: ["server"],
      groupWait: 10_000,
      groupInterval: 120_000,
      repeatInterval: 21_600_000,
    });
  });

  it("uses Alertmanager's timing defaults at the root (30s, 5m, 4h)", () => {
    const [match] = matchRoutes(compile({ receiver: "root" }), {});
    expect(match).toMatchObject({ groupWait: 30_000, groupInterval: 300_000, repeatInterval: 14_400_000 });
  });

  it("explains the match with every matcher on the path", () => {
    const root = compile({
      receiver: "root",
      routes: [{ matchers: ['server="s1"'], receiver: "a", routes: [{ matchers: ['state=~"tool_.*"'] }] }],
    });
    const [match] = matchRoutes(root, { server: "s1", state: "tool_failed" });
    expect(match?.matchedBecause).toEqual(['server="s1"', 'state=~"tool_.*"']);
    const [fallback] = matchRoutes(root, { server: "s2" });
    expect(fallback?.matchedBecause).toEqual(["no child route matched", "root route: the default receiver"]);
  });

  it("severity: route override, else the alert's own; never below critical for protected states", () => {
    const root = compile({ receiver: "root", routes: [{ matchers: ['server="s1"'], severity: "low" }] });
    expect(matchRoutes(root, { server: "s1", state: "tool_failed", severity: "warning" })[0]?.severity).toBe(
      "low",
    );
    expect(matchRoutes(root, { server: "s2", state: "tool_failed", severity: "warning" })[0]?.severity).toBe(
      "warning",
    );
    expect(
      matchRoutes(root, { server: "s1", state: "effect_unknown", severity: "critical" })[0]?.severity,
    ).toBe("critical");
    expect(matchRoutes(root, { server: "s1", state: "false_success" })[0]?.severity).toBe("critical");
  });
});

describe("matchers", () => {
  type MatcherCase = { matcher: string; labels: Record<string, string>; matches: boolean };
  const rows: MatcherCase[] = [
    { matcher: 'state="tool_failed"', labels: { state: "tool_failed" }, matches: true },
    { matcher: 'state="tool_failed"', labels: { state: "needs_auth" }, matches: false },
    { matcher: 'server!="s1"', labels: { server: "s2" }, matches: true },
    { matcher: 'server!="s1"', labels: { server: "s1" }, matches: false },
    { matcher: 'server!="s1"', labels: {}, matches: true },
    { matcher: 'reason=~"auth\\..*"', labels: { reason: "auth.challenge_unresolved" }, matches: true },
    {
      matcher: String.raw`reason=~"auth\\..*"`,
      labels: { reason: "auth.url_elicitation_required" },
      matches: true,
    },
    { matcher: 'reason=~"auth\\..*"', labels: { reason: "authXchallenge" }, matches: false },
    // Anchored at both ends, like Alertmanager: a substring is not a match.
    { matcher: 'reason=~"challenge"', labels: { reason: "auth.challenge_unresolved" }, matches: false },
    { matcher: 'tool=~"write"', labels: { tool: "write_file" }, matches: false },
    { matcher: 'tool=~"write.*"', labels: { tool: "write_file" }, matches: true },
    { matcher: 'tool=~"a|b"', labels: { tool: "ab" }, matches: false },
    { matcher: 'tool!~"read_.*"', labels: { tool: "write_file" }, matches: true },
    { matcher: 'tool!~"read_.*"', labels: { tool: "read_file" }, matches: false },
    { matcher: 'tool!~"read_.*"', labels: {}, matches: true },
    { matcher: 'label.team="payments"', labels: { "label.team": "payments" }, matches: true },
    { matcher: 'label.team!="x"', labels: { "label.team": "x" }, matches: false },
    { matcher: 'label.team!="x"', labels: {}, matches: true },
    { matcher: 'label.env=""', labels: {}, matches: true },
    { matcher: 'label.env=~".+"', labels: {}, matches: false },
    { matcher: '  server = "with \\"quotes\\""  ', labels: { server: 'with "quotes"' }, matches: true },
  ];
  it.each(rows)("$matcher on $labels → $matches", ({ matcher, labels, matches }) => {
    const parsed = parseMatcher(matcher);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(matcherMatches(parsed.matcher, labels)).toBe(matches);
  });

  it.each([
    ["state=tool_failed", "invalid_matcher"],
    ['state~="x"', "invalid_matcher"],
    ['state=="x"', "invalid_matcher"],
    ['stat="tool_failed"', "unknown_label"],
    ['label.Team="x"', "unknown_label"],
    ['state="tool_fail"', "unknown_value"],
    ['reason=~"(auth"', "invalid_regex"],
  ])("rejects %s (%s)", (text, code) => {
    const parsed = parseMatcher(text);
    expect(parsed.ok ? "ok" : parsed.code).toBe(code);
  });

  it("prints a canonical form", () => {
    const parsed = parseMatcher(' reason =~ "auth\\..*" ');
    expect(parsed.ok && parsed.matcher.text).toBe('reason=~"auth\\\\..*"');
  });
});
