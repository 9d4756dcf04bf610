// Which alerts routing at commit takes: those a route sends at once (groupWait 0, no delay) to a channel with a target.
import { describe, expect, it } from "vitest";
import { pagesAtOnce } from "@/lib/routing/at-once";
import { compileRouting } from "@/lib/routing/compile";
import type { TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";

const hook = {
  type: "webhook" as const,
  url: "https://hooks.example.com/a",
  secret: "a-secret-of-24-characters",
};

function tree(change: (config: TRoutingConfig) => void): TRoutingConfig {
  const config = structuredClone(DEFAULT_ROUTING_CONFIG);
  change(config);
  return config;
}

describe("pagesAtOnce", () => {
  it("the shipped default has no target: nothing pages at once", () => {
    const routing = compileRouting(DEFAULT_ROUTING_CONFIG);
    expect(pagesAtOnce(routing, { state: "effect_unknown", server: "s" })).toBe(false);
  });

  it("with targets, the default's effect_unknown reconciliation queue (groupWait 0s) pages at once; tool_failed waits", () => {
    const routing = compileRouting(
      tree((config) => {
        for (const channel of config.channels) channel.targets = [hook];
      }),
    );
    expect(pagesAtOnce(routing, { state: "effect_unknown", server: "s" })).toBe(true);
    expect(pagesAtOnce(routing, { state: "tool_failed", server: "s" })).toBe(false);
    // stale_catalog's route waits for its delay whatever its groupWait.
    expect(pagesAtOnce(routing, { state: "stale_catalog", server: "s" })).toBe(false);
  });

  it("a groupWait-0 route to a channel without targets does not", () => {
    const routing = compileRouting(
      tree((config) => {
        for (const channel of config.channels)
          channel.targets =
            channel.name === config.route.routes?.find((r) => r.groupWait === "0s")?.receiver ? [] : [hook];
      }),
    );
    expect(pagesAtOnce(routing, { state: "effect_unknown", server: "s" })).toBe(false);
  });

  it("a root sending at once takes every alert no child claims", () => {
    const routing = compileRouting(
      tree((config) => {
        for (const channel of config.channels) channel.targets = [hook];
        config.route.groupWait = "0s";
      }),
    );
    expect(pagesAtOnce(routing, { state: "some_state_no_route_matches", server: "s" })).toBe(true);
  });
});
