// Which alerts page at once: a route they match waits for nothing (groupWait 0, no delay) and sends to a channel with
// a target.
// Routing at commit (lib/server/routing/route-at-commit.ts) takes only those; the others take the outbox.
import type { CompiledRoute, CompiledRouting } from "./compile";
import { matchRoutes } from "./match";
import type { AlertLabels } from "./types";

const targeted = (routing: CompiledRouting, receiver: string) =>
  (routing.channels.get(receiver)?.targets.length ?? 0) > 0;

function anyRouteAtOnce(routing: CompiledRouting, route: CompiledRoute): boolean {
  if (route.groupWaitMs === 0 && route.delayMs === 0 && targeted(routing, route.receiver)) return true;
  return route.routes.some((child) => anyRouteAtOnce(routing, child));
}

// Per compiled tree (a config version compiles once): most trees have no such route, and then no alert is matched.
const treesAtOnce = new WeakMap<CompiledRouting, boolean>();

/** Whether an alert with these labels is sent at once by some route it matches. */
export function pagesAtOnce(routing: CompiledRouting, labels: AlertLabels): boolean {
  let any = treesAtOnce.get(routing);
  if (any === undefined) {
    any = anyRouteAtOnce(routing, routing.root);
    treesAtOnce.set(routing, any);
  }
  return (
    any &&
    matchRoutes(routing.root, labels).some(
      (match) => match.groupWait === 0 && match.delayMs === 0 && targeted(routing, match.receiver),
    )
  );
}
