// The start-up step's mapping from an old path-based group key to the key the config in force gives that group.
import { describe, expect, it } from "vitest";
import { type CompiledRoute, compileRouting } from "@/lib/routing/compile";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { rekeyedGroupKey } from "@/lib/server/routing/rekey-groups";

const routes = (() => {
  const out = new Map<string, CompiledRoute>();
  const walk = (route: CompiledRoute) => {
    out.set(route.path, route);
    route.routes.forEach(walk);
  };
  walk(compileRouting(DEFAULT_ROUTING_CONFIG).root);
  return out;
})();

describe("rekeyedGroupKey", () => {
  it("keeps the groupBy values and puts the route's id and the group's receiver in front", () => {
    expect(rekeyedGroupKey('$.route.routes[5]:{server="fs",state="tool_failed"}', "tool-owner", routes)).toBe(
      'tool-failed/tool-owner:{server="fs",state="tool_failed"}',
    );
    expect(rekeyedGroupKey('$.route:{server="fs",state="x"}', "integration-owner", routes)).toBe(
      'default/integration-owner:{server="fs",state="x"}',
    );
  });

  it("leaves alone a key whose route is gone, and anything not in the old format", () => {
    expect(rekeyedGroupKey('$.route.routes[42]:{server="fs"}', "tool-owner", routes)).toBeUndefined();
    expect(rekeyedGroupKey('tool-failed/tool-owner:{server="fs"}', "tool-owner", routes)).toBeUndefined();
  });
});
