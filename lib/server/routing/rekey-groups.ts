// Start-up data step after the schema migrations: notification groups keyed by route JSON path (before routes had a
// stable identity, lib/routing/route-id.ts) get the key the config in force gives them now, so the first flush
// after an upgrade finds every group under the key its alerts route to and sends nothing again. SQL cannot compute
// a route's id, hence a step in code; it is idempotent (old keys are recognised by their "$.route" prefix).
import type { CompiledRoute, CompiledRouting } from "@/lib/routing/compile";
import { lockGroupsForRekey, readLegacyGroupKeys, renameGroupKeys } from "../db/routing-rekey";
import { inTransaction } from "../db/sql";
import { currentRouting } from "./routing-config";

const LEGACY_KEY = /^(\$\.route(?:\.routes\[\d+\])*):(\{.*\})$/s;

function routesByPath(root: CompiledRoute): Map<string, CompiledRoute> {
  const out = new Map<string, CompiledRoute>();
  const walk = (route: CompiledRoute) => {
    out.set(route.path, route);
    for (const child of route.routes) walk(child);
  };
  walk(root);
  return out;
}

/**
 * The new key of an old one: the id of the route at that path now, the group's own receiver and the same groupBy
 * values. Undefined when the path names no route any more (that route is gone: the key stays, and the group's next
 * flush resolves what it announced, as for any route removed).
 */
export function rekeyedGroupKey(
  legacyKey: string,
  receiver: string,
  routes: ReadonlyMap<string, CompiledRoute>,
): string | undefined {
  const parts = LEGACY_KEY.exec(legacyKey);
  const route = parts ? routes.get(parts[1] as string) : undefined;
  return route ? `${route.id}/${receiver}:${parts?.[2]}` : undefined;
}

/** Renames every old-format group key under `routing` (default: the config in force). Returns the groups renamed. */
export async function rekeyLegacyGroups(routing?: CompiledRouting): Promise<number> {
  const compiled = routing ?? (await currentRouting()).compiled;
  const routes = routesByPath(compiled.root);
  return inTransaction(async (sql) => {
    await lockGroupsForRekey(sql);
    const legacy = await readLegacyGroupKeys(sql);
    const renames = legacy.flatMap(({ groupKey, receiver }) => {
      const to = rekeyedGroupKey(groupKey, receiver, routes);
      return to ? [{ from: groupKey, to }] : [];
    });
    return renameGroupKeys(sql, renames);
  });
}
