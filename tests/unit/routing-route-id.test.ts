// Route identity: the key a route's notification groups are built on must survive edits to other routes.
import { describe, expect, it } from "vitest";
import { alertsForChain } from "@/lib/routing/alerts";
import { type CompiledRoute, compileRouting } from "@/lib/routing/compile";
import type { TRouteConfig, TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { evaluateAlert } from "@/lib/routing/evaluate";
import { canonicalMatchers, routeIds } from "@/lib/routing/route-id";
import { validateRoutingConfig } from "@/lib/routing/validate";

const config = (routes: TRouteConfig[], root: Partial<TRouteConfig> = {}): TRoutingConfig => ({
  version: 1,
  channels: [
    { name: "ops", ownerRole: "ops", targets: [] },
    { name: "tools", ownerRole: "tools", targets: [] },
  ],
  route: { receiver: "ops", groupBy: ["server"], ...root, routes },
  inhibitRules: [],
  silences: [],
});

const toolFailed = (() => {
  const [alert] = alertsForChain({
    chainId: "c1",
    sessionId: "s1",
    state: "tool_failed",
    layer: "request",
    reasons: ["request.tool_error"],
    server: "fs",
    labels: { team: "a" },
  });
  if (!alert) throw new Error("tool_failed alerts");
  return alert;
})();

const keysOf = (c: TRoutingConfig): string[] =>
  evaluateAlert(compileRouting(c), toolFailed, 0).routes.map((r) => r.groupKey);

const flatIds = (route: CompiledRoute): string[] => [route.id, ...route.routes.flatMap(flatIds)];

const tools: TRouteConfig = { name: "tools", matchers: ['state="tool_failed"'], receiver: "tools" };
const unrelated: TRouteConfig = { name: "nothing", matchers: ['label.team="nobody"'], receiver: "ops" };

describe("route ids", () => {
  it("ignore spacing, order and duplicates among a route's matchers", () => {
    expect(canonicalMatchers(['server = "fs"', 'state="tool_failed"', 'server="fs"'])).toEqual(
      canonicalMatchers(['state="tool_failed"', ' server="fs" ']),
    );
    const a = routeIds({ routes: [{ matchers: ['server = "fs"', 'state="tool_failed"'] }] });
    const b = routeIds({ routes: [{ matchers: ['state="tool_failed"', 'server="fs"'] }] });
    expect(a[1]?.id).toBe(b[1]?.id);
  });

  it("tell apart twins by their occurrence among twins only, and a child from its catch-all parent", () => {
    const twin = { matchers: ['state="tool_failed"'] };
    const ids = routeIds({ routes: [twin, { matchers: ['server="x"'] }, twin, { routes: [{}] }] });
    expect(new Set(ids.map((r) => r.id)).size).toBe(ids.length);
    const withoutMiddle = routeIds({ routes: [twin, twin] });
    expect([withoutMiddle[1]?.id, withoutMiddle[2]?.id]).toEqual([ids[1]?.id, ids[3]?.id]);
    const namedTwinFirst = routeIds({ routes: [{ ...twin, id: "named" }, twin, twin] });
    expect([namedTwinFirst[2]?.id, namedTwinFirst[3]?.id]).toEqual([ids[1]?.id, ids[3]?.id]);
  });

  it("use an explicit id as is, and are all distinct in the shipped defaults", () => {
    const compiled = compileRouting(DEFAULT_ROUTING_CONFIG);
    expect(compiled.root.routes.find((r) => r.name === "tool failed")?.id).toBe("tool-failed");
    const ids = flatIds(compiled.root);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("group keys stay put when other routes change", () => {
  const before = keysOf(config([unrelated, tools]));

  it("inserting, removing or reordering a sibling changes nothing", () => {
    expect(keysOf(config([tools]))).toEqual(before);
    expect(keysOf(config([tools, unrelated]))).toEqual(before);
    expect(keysOf(config([unrelated, { ...unrelated, matchers: ['label.team="b"'] }, tools]))).toEqual(
      before,
    );
  });

  it("renaming a route changes nothing", () => {
    expect(keysOf(config([unrelated, { ...tools, name: "renamed" }]))).toEqual(before);
  });

  it("a changed receiver or groupBy is a new group", () => {
    expect(keysOf(config([unrelated, { ...tools, receiver: "ops" }]))).not.toEqual(before);
    expect(keysOf(config([unrelated, { ...tools, groupBy: ["server", "state"] }]))).not.toEqual(before);
  });

  it("an explicit id keeps the key when the route's matchers are edited", () => {
    const named = { ...tools, id: "tools" };
    const key = keysOf(config([named]));
    expect(key).toEqual(['tools/tools:{server="fs"}']);
    expect(keysOf(config([{ ...named, matchers: ['state=~"tool_failed|protocol_error"'] }]))).toEqual(key);
  });
});

describe("explicit id validation", () => {
  it("refuses a duplicated id at the later route's path", () => {
    const result = validateRoutingConfig(
      config([
        { ...tools, id: "x" },
        { ...unrelated, routes: [{ id: "x", matchers: ['server="a"'] }] },
      ]),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      expect.objectContaining({ path: "$.route.routes[1].routes[0].id", code: "duplicate_route_id" }),
    ]);
  });

  it("refuses an id that is not name-like", () => {
    const result = validateRoutingConfig(config([{ ...tools, id: "no spaces/here" }]));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.path, e.code])).toEqual([["$.route.routes[0].id", "invalid_format"]]);
  });
});
