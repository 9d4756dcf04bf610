// Which channels a config save gives new targets: their groups, flushed "as if sent" while target-less, are sent again.
import { describe, expect, it } from "vitest";
import type { TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { channelsGainingTargets } from "@/lib/server/routing/routing-config";

const hook = (n: number) => ({
  type: "webhook" as const,
  url: `https://hooks.example.com/${n}`,
  secret: "s",
});

function withTargets(counts: Record<string, number>): TRoutingConfig {
  const config = structuredClone(DEFAULT_ROUTING_CONFIG);
  for (const channel of config.channels)
    channel.targets = Array.from({ length: counts[channel.name] ?? 0 }, (_, i) => hook(i));
  return config;
}

describe("channelsGainingTargets", () => {
  const [first, second] = DEFAULT_ROUTING_CONFIG.channels.map((c) => c.name);
  if (!first || !second) throw new Error("the defaults have channels");

  it("a first target, or more targets than before, counts; the same or fewer does not", () => {
    const before = withTargets({ [second]: 2 });
    expect(channelsGainingTargets(before, withTargets({ [first]: 1, [second]: 2 }))).toEqual([first]);
    expect(channelsGainingTargets(before, withTargets({ [second]: 3 }))).toEqual([second]);
    expect(channelsGainingTargets(before, withTargets({ [second]: 1 }))).toEqual([]);
    expect(channelsGainingTargets(before, before)).toEqual([]);
  });

  it("a new channel with targets counts", () => {
    const next = withTargets({});
    next.channels.push({ name: "new-team", ownerRole: "new team", targets: [hook(1)] });
    expect(channelsGainingTargets(withTargets({}), next)).toEqual(["new-team"]);
  });
});
