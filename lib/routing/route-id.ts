// A route's stable identity, the first part of its notification groups' keys. A group key must not move when
// other routes are inserted, removed, reordered or renamed, or every firing alert would be announced again
// under a new key. So a route is known by an explicit `id`, or else by a hash of its matcher path, as
// Alertmanager keys its routes: the parent's identity plus the route's own matchers, sorted and in canonical
// text so spacing and matcher order do not count. Siblings with the same matchers are told apart by their
// occurrence among those siblings alone: inserting a different sibling renumbers nothing.
import { fnv1a64 } from "./fingerprint";
import { parseMatcher } from "./matcher";

/** What an explicit route id may be: a readable name, safe inside a group key. */
export const ROUTE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/** Prefix of a derived (hashed) id: explicit ids may not start with it, so the two never collide. */
export const DERIVED_ID_PREFIX = "r~";

interface RouteLike {
  id?: string;
  matchers?: readonly string[];
  routes?: readonly RouteLike[];
}

/** One route's matchers in canonical form: parsed text where it parses, sorted, duplicates removed. */
export function canonicalMatchers(texts: readonly string[] | undefined): string[] {
  const canonical = (texts ?? []).map((text) => {
    const parsed = parseMatcher(text, { refuseNeverMatching: false });
    return parsed.ok ? parsed.matcher.text : text.trim();
  });
  return [...new Set(canonical)].sort();
}

/** A derived id: the hash of the parent's identity, this route's matchers and its occurrence among twins. */
export function derivedRouteId(
  parentId: string | null,
  matchers: readonly string[],
  occurrence: number,
): string {
  const key = JSON.stringify([parentId, canonicalMatchers(matchers), occurrence]);
  return `${DERIVED_ID_PREFIX}${fnv1a64(key)}`;
}

/** The id of every child of a route, in order (explicit where given, derived otherwise). */
export function childRouteIds(parentId: string, children: readonly RouteLike[]): string[] {
  const seen = new Map<string, number>();
  return children.map((child) => {
    // A sibling with an explicit id is outside the derived ids' numbering: adding or removing it renumbers nothing.
    if (child.id !== undefined) return child.id;
    const matcherKey = JSON.stringify(canonicalMatchers(child.matchers));
    const occurrence = seen.get(matcherKey) ?? 0;
    seen.set(matcherKey, occurrence + 1);
    return derivedRouteId(parentId, child.matchers ?? [], occurrence);
  });
}

/** The root's id: explicit, or derived from no parent and its (normally empty) matchers. */
export const rootRouteId = (root: RouteLike): string =>
  root.id ?? derivedRouteId(null, root.matchers ?? [], 0);

/** Every route's id with its JSON path, in tree order (for uniqueness checks and display). */
export function routeIds(root: RouteLike, rootPath = "$.route"): Array<{ id: string; path: string }> {
  const out: Array<{ id: string; path: string }> = [];
  const walk = (route: RouteLike, id: string, path: string) => {
    out.push({ id, path });
    const children = route.routes ?? [];
    const ids = childRouteIds(id, children);
    for (const [i, child] of children.entries()) walk(child, ids[i] as string, `${path}.routes[${i}]`);
  };
  walk(root, rootRouteId(root), rootPath);
  return out;
}
