// Pure route matching with Alertmanager semantics: a node matches when all its matchers match;
// its children are tried depth-first in order; the first matching child stops the search unless
// it has `continue: true`; a matching node none of whose children match is itself the result.
// Options were already inherited at compile time (compile.ts).
import { type CompiledRoute, ROOT_PATH } from "./compile";
import { allMatch } from "./matcher";
import { type AlertLabels, isProtectedState, SEVERITIES, type Severity } from "./types";

export interface RouteMatch {
  receiver: string;
  /** The matched route's stable id (route-id.ts): what its group keys are built on. */
  routeId: string;
  /** JSON path of the matched route in the config, e.g. "$.route.routes[3]": display only. */
  routePath: string;
  routeName?: string;
  /** Label names; ["..."] = every label. Feed the match to groupKey(match, labels). */
  groupBy: string[];
  /** Milliseconds. */
  groupWait: number;
  groupInterval: number;
  repeatInterval: number;
  /** The route's override, else the alert's own; always critical for protected states. */
  severity: Severity;
  delayMs: number;
  confirmOnNextRecord: boolean;
  /** Human-readable: every matcher on the path from the root that matched, in order. */
  matchedBecause: string[];
}

export const NO_CHILD_MATCHED = "no child route matched";
export const ROOT_DEFAULT = "root route: the default receiver";
export const CATCH_ALL = "route without matchers: matches everything";

function effectiveSeverity(route: CompiledRoute, labels: AlertLabels): Severity {
  const state = labels.state ?? "";
  if (isProtectedState(state)) return "critical";
  const own = SEVERITIES.find((s) => s === labels.severity);
  return route.severity ?? own ?? "warning";
}

function toMatch(route: CompiledRoute, labels: AlertLabels, because: string[]): RouteMatch {
  return {
    receiver: route.receiver,
    routeId: route.id,
    routePath: route.path,
    routeName: route.name,
    groupBy: route.groupBy,
    groupWait: route.groupWaitMs,
    groupInterval: route.groupIntervalMs,
    repeatInterval: route.repeatIntervalMs,
    severity: effectiveSeverity(route, labels),
    delayMs: route.delayMs,
    confirmOnNextRecord: route.confirmOnNextRecord,
    matchedBecause: explain(route, because),
  };
}

function explain(route: CompiledRoute, because: string[]): string[] {
  const out = [...because];
  if (route.routes.length > 0) out.push(NO_CHILD_MATCHED);
  if (route.path === ROOT_PATH) out.push(ROOT_DEFAULT);
  else if (route.matchers.length === 0) out.push(CATCH_ALL);
  return out;
}

function walk(route: CompiledRoute, labels: AlertLabels, because: string[]): RouteMatch[] | null {
  if (!allMatch(route.matchers, labels)) return null;
  const path = [...because, ...route.matchers.map((m) => m.text)];
  const found: RouteMatch[] = [];
  for (const child of route.routes) {
    const matches = walk(child, labels, path);
    if (matches === null) continue;
    found.push(...matches);
    if (!child.continue) break;
  }
  return found.length > 0 ? found : [toMatch(route, labels, path)];
}

/** Every route an alert with these labels reaches, in tree order. Never empty: the root matches. */
export function matchRoutes(root: CompiledRoute, labels: AlertLabels): RouteMatch[] {
  return walk(root, labels, []) ?? [toMatch(root, labels, [])];
}
