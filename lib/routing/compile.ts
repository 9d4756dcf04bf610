// Compile a validated config into the runtime shape: matchers parsed, durations in ms and every
// inherited option (receiver, groupBy, groupWait, groupInterval, repeatInterval) resolved per node,
// so matching is a plain tree walk with no lookups back into the config.
import { type TChannel, type TRouteConfig, type TRoutingConfig, ZRoutingConfig } from "./config";
import { parseDuration } from "./duration";
import { type CompiledInhibitRule, compileInhibitRule } from "./inhibit";
import { type Matcher, mustParseMatcher } from "./matcher";
import { childRouteIds, rootRouteId } from "./route-id";
import { type CompiledSilence, compileSilence } from "./silence";
import type { Severity } from "./types";
import { type ConfigError, ROOT_TIMING_MS, type TimingMs, validateRoutingConfig } from "./validate";

export interface CompiledRoute {
  /** Stable identity (route-id.ts): explicit `id` or a hash of the matcher path. Keys its groups. */
  id: string;
  /** JSON path of the route in the config ("$.route.routes[2]"), for display only: it moves on edits. */
  path: string;
  name?: string;
  receiver: string;
  matchers: Matcher[];
  continue: boolean;
  /** Label names to group by; empty = one group for the route; ["..."] = every label. */
  groupBy: string[];
  groupWaitMs: number;
  groupIntervalMs: number;
  repeatIntervalMs: number;
  /** Not inherited: a severity or delay describes the condition this route matched. */
  severity?: Severity;
  delayMs: number;
  confirmOnNextRecord: boolean;
  routes: CompiledRoute[];
}

export interface CompiledRouting {
  root: CompiledRoute;
  channels: ReadonlyMap<string, TChannel>;
  inhibitRules: CompiledInhibitRule[];
  silences: CompiledSilence[];
}

export const ROOT_PATH = "$.route";

const ms = (text: string | undefined, fallback: number): number => {
  if (text === undefined) return fallback;
  const value = parseDuration(text);
  if (value === null) throw new Error(`invalid duration ${text}: validate the config before compiling`);
  return value;
};

function compileRoute(
  route: TRouteConfig,
  id: string,
  path: string,
  parent: CompiledRoute | undefined,
): CompiledRoute {
  const inherited: TimingMs = parent
    ? {
        groupWait: parent.groupWaitMs,
        groupInterval: parent.groupIntervalMs,
        repeatInterval: parent.repeatIntervalMs,
      }
    : ROOT_TIMING_MS;
  const receiver = route.receiver ?? parent?.receiver;
  if (receiver === undefined)
    throw new Error("root route without receiver: validate the config before compiling");
  const groupBy = route.groupBy ?? (parent ? [...parent.groupBy] : []);
  const node: CompiledRoute = {
    id,
    path,
    name: route.name,
    receiver,
    matchers: (route.matchers ?? []).map(mustParseMatcher),
    continue: route.continue ?? false,
    groupBy,
    groupWaitMs: ms(route.groupWait, inherited.groupWait),
    groupIntervalMs: ms(route.groupInterval, inherited.groupInterval),
    repeatIntervalMs: ms(route.repeatInterval, inherited.repeatInterval),
    severity: route.severity,
    delayMs: ms(route.delay, 0),
    confirmOnNextRecord: route.confirmOnNextRecord ?? false,
    routes: [],
  };
  const children = route.routes ?? [];
  const ids = childRouteIds(id, children);
  node.routes = children.map((child, i) =>
    compileRoute(child, ids[i] as string, `${path}.routes[${i}]`, node),
  );
  return node;
}

/** Compile a config that passed validateRoutingConfig (throws on an unvalidated, broken one). */
export function compileRouting(config: TRoutingConfig): CompiledRouting {
  return {
    root: compileRoute(config.route, rootRouteId(config.route), ROOT_PATH, undefined),
    channels: new Map(config.channels.map((c) => [c.name, c])),
    inhibitRules: config.inhibitRules.map(compileInhibitRule),
    silences: config.silences.map(compileSilence),
  };
}

export type LoadResult =
  | { ok: true; config: TRoutingConfig; compiled: CompiledRouting }
  | { ok: false; errors: ConfigError[] };

/**
 * Rules a config is held to when it is saved, not when a version saved before the rule existed is loaded again: such
 * a version keeps routing as it did (a never-matching regex matches nothing, a short PagerDuty key is refused by
 * PagerDuty and shows in the delivery log) instead of the whole config falling back to the shipped default.
 */
export const SAVE_TIME_RULES: ReadonlySet<string> = new Set(["never_matches", "invalid_routing_key"]);

/** Validate then compile: the one call for importing a JSON config (`stored`: a version saved earlier). */
export function loadRoutingConfig(input: unknown, { stored = false } = {}): LoadResult {
  const result = validateRoutingConfig(input);
  if (result.ok) return { ok: true, config: result.config, compiled: compileRouting(result.config) };
  const errors = stored ? result.errors.filter((error) => !SAVE_TIME_RULES.has(error.code)) : result.errors;
  if (errors.length > 0) return { ok: false, errors };
  // Only save-time rules failed, so the shape parsed.
  const config = ZRoutingConfig.parse(input);
  return { ok: true, config, compiled: compileRouting(config) };
}
