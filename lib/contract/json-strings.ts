/** One step of a JSON path: an object key or an array index. */
export type PathSegment = string | number;

/** Deeper than any valid document here; a walk stops there rather than risk the stack on hostile input. */
export const MAX_WALK_DEPTH = 64;

/**
 * Calls `visit` with every string value and every object key in `value`, and the path that leads to it (a key's path
 * ends with the key itself). The guards that must see every string a document holds (storable text, credentials)
 * share this one walk. `path` is reused between calls: copy it to keep it.
 */
export function forEachString(
  value: unknown,
  visit: (text: string, path: readonly PathSegment[], where: "key" | "value") => void,
): void {
  walk(value, [], visit);
}

function walk(
  value: unknown,
  path: PathSegment[],
  visit: (text: string, path: readonly PathSegment[], where: "key" | "value") => void,
): void {
  if (typeof value === "string") {
    visit(value, path, "value");
    return;
  }
  if (typeof value !== "object" || value === null || path.length >= MAX_WALK_DEPTH) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walk(value[i], path, visit);
      path.pop();
    }
    return;
  }
  for (const key of Object.keys(value)) {
    path.push(key);
    visit(key, path, "key");
    walk((value as Record<string, unknown>)[key], path, visit);
    path.pop();
  }
}
