// One validation pass reports every problem (shape and whole-tree rules alike) with its code and JSON path, and
// the item-7 rules: a state regex that can never match, a PagerDuty routing key that is not 32 characters.
import { describe, expect, it } from "vitest";
import { maskSecrets, type TRoutingConfig } from "@/lib/routing/config";
import { parseMatcher } from "@/lib/routing/matcher";
import { loadEditedConfig, unmaskSecrets } from "@/lib/routing/secrets";
import { validateRoutingConfig } from "@/lib/routing/validate";

const PD_KEY = "0123456789abcdef0123456789abcdef";
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const valid = (): TRoutingConfig => ({
  version: 1,
  channels: [
    { name: "ops", ownerRole: "ops", targets: [] },
    {
      name: "pager",
      ownerRole: "on-call",
      targets: [{ type: "pagerduty", routingKey: PD_KEY, url: "http://127.0.0.1:9/pd" }],
    },
  ],
  route: {
    receiver: "ops",
    groupBy: ["server"],
    routes: [{ matchers: ['state="tool_failed"'], receiver: "pager" }],
  },
  inhibitRules: [],
  silences: [],
});

function pdTarget(config: TRoutingConfig): { routingKey: string } {
  const target = config.channels[1]?.targets[0];
  if (target?.type !== "pagerduty") throw new Error("fixture: pager's first target is PagerDuty");
  return target;
}

function routes(config: TRoutingConfig): unknown[] {
  if (!config.route.routes) throw new Error("fixture: the root has routes");
  return config.route.routes;
}

/** [path, code] of every problem, in a stable order. */
const problems = (input: unknown): string[][] => {
  const result = validateRoutingConfig(input);
  if (result.ok) return [];
  return result.errors.map((e) => [e.path, e.code]).sort((a, b) => (a.join() < b.join() ? -1 : 1));
};

describe("every problem at once", () => {
  it("reports shape errors and tree rules of the parts that parsed, each at its path", () => {
    const config = clone(valid());
    pdTarget(config).routingKey = "short"; // tree rule on a target
    (config.channels as unknown[]).push({ name: "Bad Name", ownerRole: "x", targets: [] }); // shape
    config.route.groupWait = "soon"; // shape
    routes(config).push({ matchers: ['state=~"tool_faild"'], receiver: "nobody" }); // two tree rules
    routes(config).push({ id: "dup", matchers: ['server="b"'] }, { id: "dup", matchers: ['server="a"'] }); // tree rule
    config.inhibitRules.push({ sourceMatchers: ['state="needs_auth"'], targetMatchers: [], equal: [] }); // shape
    config.silences.push({
      id: "s1",
      matchers: ['server="x"'],
      startsAt: "2026-11-30T12:00:00Z",
      endsAt: "2026-11-30T10:00:00Z",
      createdBy: "a",
      comment: "c",
    }); // tree rule
    expect(problems(config)).toEqual([
      ["$.channels[1].targets[0].routingKey", "invalid_routing_key"],
      ["$.channels[2].name", "invalid_format"],
      ["$.inhibitRules[0].targetMatchers", "too_small"],
      ["$.route.groupWait", "invalid_format"],
      ["$.route.routes[1].matchers[0]", "never_matches"],
      ["$.route.routes[1].receiver", "unknown_receiver"],
      ["$.route.routes[3].id", "duplicate_route_id"],
      ["$.silences[0].endsAt", "silence_window"],
    ]);
  });

  it("does not repeat a shape error as a tree rule at the same path", () => {
    const config = clone(valid());
    config.route.receiver = "Not A Name";
    expect(problems(config)).toEqual([["$.route.receiver", "invalid_format"]]);
  });

  it("a route that is not an object at all still lets its siblings be checked", () => {
    const config = clone(valid());
    routes(config).unshift("oops");
    routes(config).push({ receiver: "nobody" });
    expect(problems(config)).toEqual([
      ["$.route.routes[0]", "invalid_type"],
      ["$.route.routes[2].receiver", "unknown_receiver"],
    ]);
  });
});

describe("state regexes that can never match", () => {
  const at = (matcher: string) => {
    const config = clone(valid());
    routes(config)[0] = { matchers: [matcher], receiver: "pager" };
    return problems(config);
  };

  it("refuses a positive regex matching no state, and equality on an unknown state", () => {
    expect(at('state=~"tool_faild"')).toEqual([["$.route.routes[0].matchers[0]", "never_matches"]]);
    expect(at('state="tool_faild"')).toEqual([["$.route.routes[0].matchers[0]", "unknown_value"]]);
    expect(at('state=~"tool_failed|protocol_eror"')).toEqual([]);
  });

  it("refuses a negative regex only when it excludes every state", () => {
    expect(at('state!~".*"')).toEqual([["$.route.routes[0].matchers[0]", "never_matches"]]);
    expect(at('state!~"tool_faild"')).toEqual([]);
  });

  it("applies to inhibition rules and silences too", () => {
    const config = clone(valid());
    config.inhibitRules = [
      {
        sourceMatchers: ['state=~"needs_authh"'],
        targetMatchers: ['state="tool_failed"'],
        equal: ["server"],
      },
    ];
    config.silences = [
      {
        id: "s",
        matchers: ['layer=~"transportt"'],
        startsAt: "2026-11-30T10:00:00Z",
        endsAt: "2026-11-30T12:00:00Z",
        createdBy: "a",
        comment: "c",
      },
    ];
    expect(problems(config)).toEqual([
      ["$.inhibitRules[0].sourceMatchers[0]", "never_matches"],
      ["$.silences[0].matchers[0]", "never_matches"],
    ]);
    // The silences API parses its matchers with the same function.
    expect(parseMatcher('state=~"tool_faild"')).toMatchObject({ ok: false, code: "never_matches" });
  });
});

describe("PagerDuty routing keys", () => {
  it("refuses a key that is not exactly 32 characters, at its path", () => {
    for (const key of ["x".repeat(31), "x".repeat(33)]) {
      const config = clone(valid());
      pdTarget(config).routingKey = key;
      expect(problems(config)).toEqual([["$.channels[1].targets[0].routingKey", "invalid_routing_key"]]);
    }
  });

  it("a masked key round-trips: it is restored before it is validated", () => {
    const stored = valid();
    const masked = clone(maskSecrets(stored));
    expect(pdTarget(masked).routingKey).toBe("••••••#pager/0");
    const unmasked = unmaskSecrets(masked, stored);
    if (!unmasked.ok) throw new Error(JSON.stringify(unmasked.errors));
    expect(validateRoutingConfig(unmasked.value)).toEqual({ ok: true, config: stored });
  });
});

describe("an edited config with an unresolvable masked secret", () => {
  it("reports the secret and every other problem at once, the secret once", () => {
    const stored = valid();
    const edited = clone(maskSecrets(stored)) as TRoutingConfig;
    pdTarget(edited).routingKey = "••••••#nowhere/0";
    edited.route.receiver = "nobody";
    (routes(edited)[0] as { matchers: string[] }).matchers = ['state=~"tool_faild"'];
    const result = loadEditedConfig(edited, stored);
    if (result.ok) throw new Error("accepted");
    expect(result.errors.map((e) => [e.path, e.code])).toEqual([
      ["$.channels[1].targets[0].routingKey", "masked_secret_unresolved"],
      ["$.route.receiver", "unknown_receiver"],
      ["$.route.routes[0].matchers[0]", "never_matches"],
    ]);
  });
});
