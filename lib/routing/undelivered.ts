// "Alerts are recorded but not delivered": which channels the route tree can send alerts to that have no target.
// Pure, so the dashboard's banner and its tests share one decision.
import type { TRouteConfig, TRoutingConfig } from "./config";

/** What the dashboard says about delivery: nothing, that no alert is delivered, or which channels are not. */
export type DeliveryNotice =
  | { kind: "delivered" }
  | { kind: "nothing_delivered"; channels: string[] }
  | { kind: "some_undelivered"; channels: string[] };

/** Every channel named as a receiver in the tree (a route without one uses its parent's, already counted). */
function reachableChannels(route: TRouteConfig, into = new Set<string>()): Set<string> {
  if (route.receiver) into.add(route.receiver);
  for (const child of route.routes ?? []) reachableChannels(child, into);
  return into;
}

/** Channels alerts can be routed to that have no target, in the config's channel order. */
export function undeliveredChannels(config: Pick<TRoutingConfig, "channels" | "route">): string[] {
  const reachable = reachableChannels(config.route);
  return config.channels.filter((c) => reachable.has(c.name) && c.targets.length === 0).map((c) => c.name);
}

export function deliveryNotice(config: Pick<TRoutingConfig, "channels" | "route">): DeliveryNotice {
  const channels = undeliveredChannels(config);
  if (channels.length === 0) return { kind: "delivered" };
  const reachable = reachableChannels(config.route);
  const anyDelivered = config.channels.some((c) => reachable.has(c.name) && c.targets.length > 0);
  return anyDelivered ? { kind: "some_undelivered", channels } : { kind: "nothing_delivered", channels };
}
