// Pure edits of a route tree, addressed by route path (child indexes from the root: [] is the root, [2, 0] the first
// child of the root's third child). Each returns a new tree and leaves its input untouched, so the UI can edit a copy
// of the config it read and save it as a whole new version. Children and explicit ids travel with their route: an
// edit replaces a route's own options only, a move or delete takes its subroutes with it.
import type { TRouteConfig } from "./config";

export type RoutePath = readonly number[];
/** A route's own options: everything but its children. */
export type RouteFields = Omit<TRouteConfig, "routes">;

export class RoutePathError extends Error {}

/** The route at `path`, or undefined when the path leads nowhere. */
export function routeAt(root: TRouteConfig, path: RoutePath): TRouteConfig | undefined {
  let node: TRouteConfig | undefined = root;
  for (const index of path) node = node?.routes?.[index];
  return node;
}

const mustRouteAt = (root: TRouteConfig, path: RoutePath): TRouteConfig => {
  const node = routeAt(root, path);
  if (!node) throw new RoutePathError(`no route at [${path.join(", ")}]`);
  return node;
};

/** Copies the nodes on the way to `path` and replaces the node there with `change(node)`. */
function updateAt(
  root: TRouteConfig,
  path: RoutePath,
  change: (node: TRouteConfig) => TRouteConfig,
): TRouteConfig {
  if (path.length === 0) return change(root);
  const [first, ...rest] = path as [number, ...number[]];
  const children = root.routes ?? [];
  const child = children[first];
  if (!child) throw new RoutePathError(`no route at index ${first}`);
  const routes = children.slice();
  routes[first] = updateAt(child, rest, change);
  return { ...root, routes };
}

/** Drops keys whose value is undefined: an emptied form field removes the option (it is inherited again). */
const defined = (fields: RouteFields): RouteFields =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as RouteFields;

/**
 * Replaces the own options of the route at `path` with `fields`. Its subroutes are kept, and so is its explicit
 * `id` unless `fields` names one (`id: undefined` removes it): a group keyed by that id survives the edit.
 */
export function editRoute(root: TRouteConfig, path: RoutePath, fields: RouteFields): TRouteConfig {
  return updateAt(root, path, (node) => {
    const id = "id" in fields ? fields.id : node.id;
    const { id: _ignored, ...rest } = fields;
    return {
      ...defined({ ...(id !== undefined ? { id } : {}), ...rest }),
      ...(node.routes ? { routes: node.routes } : {}),
    };
  });
}

/** Whether the route at `path` can move by `delta` among its siblings (the root never moves). */
export function canMoveRoute(root: TRouteConfig, path: RoutePath, delta: number): boolean {
  if (path.length === 0 || !routeAt(root, path)) return false;
  const siblings = routeAt(root, path.slice(0, -1))?.routes ?? [];
  const to = (path.at(-1) as number) + delta;
  return to >= 0 && to < siblings.length;
}

/** Moves the route at `path` (with its subroutes) `delta` places among its siblings. */
export function moveRoute(root: TRouteConfig, path: RoutePath, delta: number): TRouteConfig {
  if (!canMoveRoute(root, path, delta))
    throw new RoutePathError(`the route at [${path.join(", ")}] cannot move by ${delta}`);
  const from = path.at(-1) as number;
  return updateAt(root, path.slice(0, -1), (parent) => {
    const routes = (parent.routes ?? []).slice();
    const [moved] = routes.splice(from, 1);
    routes.splice(from + delta, 0, moved as TRouteConfig);
    return { ...parent, routes };
  });
}

/** Removes the route at `path` and its subroutes; the root cannot be removed. */
export function deleteRoute(root: TRouteConfig, path: RoutePath): TRouteConfig {
  if (path.length === 0) throw new RoutePathError("the root route cannot be deleted");
  mustRouteAt(root, path);
  const at = path.at(-1) as number;
  return updateAt(root, path.slice(0, -1), (parent) => {
    const routes = (parent.routes ?? []).filter((_, i) => i !== at);
    const { routes: _old, ...own } = parent;
    return routes.length > 0 ? { ...own, routes } : own;
  });
}

/** Inserts `route` as the child number `index` of the route at `parentPath` (0 = tried first; past the end = last). */
export function insertRoute(
  root: TRouteConfig,
  parentPath: RoutePath,
  index: number,
  route: TRouteConfig,
): TRouteConfig {
  mustRouteAt(root, parentPath);
  return updateAt(root, parentPath, (parent) => {
    const routes = (parent.routes ?? []).slice();
    routes.splice(Math.max(0, Math.min(index, routes.length)), 0, route);
    return { ...parent, routes };
  });
}

/** How a route is named to a person: its name, else its id, else its matchers. */
export function routeLabel(route: TRouteConfig, path: RoutePath): string {
  if (route.name) return route.name;
  if (path.length === 0) return "root";
  if (route.id) return route.id;
  const matchers = route.matchers ?? [];
  return matchers.length > 0 ? matchers.join(", ") : "(catch-all route)";
}

/** The labels of every route under `route` (depth first), for "this also deletes …". */
export function subrouteLabels(route: TRouteConfig, path: RoutePath): string[] {
  return (route.routes ?? []).flatMap((child, i) => {
    const childPath = [...path, i];
    return [routeLabel(child, childPath), ...subrouteLabels(child, childPath)];
  });
}

/**
 * A route with no matchers catches every alert that reaches it, so every later sibling is dead unless it is the
 * last one. True when a route without matchers would sit at `index` among `siblingCount` siblings but not last.
 */
export function isMisplacedCatchAll(
  matchers: readonly string[],
  index: number,
  siblingCount: number,
): boolean {
  return matchers.length === 0 && index < siblingCount - 1;
}
