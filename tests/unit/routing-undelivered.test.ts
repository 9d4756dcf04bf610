// Item 5 of issue 16: which channels alerts can reach without a target, for the dashboard's banner.
import { describe, expect, it } from "vitest";
import type { TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { deliveryNotice, undeliveredChannels } from "@/lib/routing/undelivered";

const hook = { type: "webhook" as const, url: "https://hooks.example/a", secret: "0123456789abcdef0123" };

function withTargets(names: string[], change?: (config: TRoutingConfig) => void): TRoutingConfig {
  const config = structuredClone(DEFAULT_ROUTING_CONFIG);
  for (const channel of config.channels) if (names.includes(channel.name)) channel.targets.push(hook);
  change?.(config);
  return config;
}

describe("undeliveredChannels / deliveryNotice", () => {
  it("out of the box: every channel alerts reach is undelivered, and nothing is delivered", () => {
    const all = DEFAULT_ROUTING_CONFIG.channels.map((c) => c.name);
    expect(undeliveredChannels(DEFAULT_ROUTING_CONFIG)).toEqual(all);
    expect(deliveryNotice(DEFAULT_ROUTING_CONFIG)).toEqual({ kind: "nothing_delivered", channels: all });
  });

  it("names the channels alerts reach that have no target when others have one", () => {
    const config = withTargets(["tool-owner", "outcome-incident", "integration-owner", "client-implementer"]);
    expect(deliveryNotice(config)).toEqual({
      kind: "some_undelivered",
      channels: ["credentials-owner", "reconciliation"],
    });
  });

  it("says nothing when every reachable channel has a target, ignoring channels no route names", () => {
    const config = withTargets(
      DEFAULT_ROUTING_CONFIG.channels.map((c) => c.name),
      (draft) => draft.channels.push({ name: "spare", ownerRole: "nobody yet", targets: [] }),
    );
    expect(undeliveredChannels(config)).toEqual([]);
    expect(deliveryNotice(config)).toEqual({ kind: "delivered" });
  });

  it("finds receivers nested deep in the tree and the root's catch-all", () => {
    const config: TRoutingConfig = {
      ...structuredClone(DEFAULT_ROUTING_CONFIG),
      channels: [
        { name: "root", ownerRole: "r", targets: [hook] },
        { name: "deep", ownerRole: "d", targets: [] },
      ],
      route: { receiver: "root", routes: [{ matchers: ['server="a"'], routes: [{ receiver: "deep" }] }] },
    };
    expect(deliveryNotice(config)).toEqual({ kind: "some_undelivered", channels: ["deep"] });
    config.channels[0] = { name: "root", ownerRole: "r", targets: [] };
    expect(deliveryNotice(config)).toEqual({ kind: "nothing_delivered", channels: ["root", "deep"] });
  });
});
