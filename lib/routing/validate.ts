// Whole-config validation: zod for shape, then the rules that need the whole tree. Every problem
// is reported in one pass (not just the first, and tree rules still run on the parts whose shape
// was fine: validate-salvage.ts) as { path, code, message } with JSON paths rooted at `$`,
// so an editor can point at the offending line of an imported file.
import type { z } from "zod";
import { type TRouteConfig, type TRoutingConfig, ZRoutingConfig } from "./config";
import { parseDuration } from "./duration";
import { protectedStatesTargeted } from "./inhibit";
import { isKnownLabelName, type Matcher, parseMatcher } from "./matcher";
import { routeIds } from "./route-id";
import { hasEnvReference, secretFieldOf } from "./secret-fields";
import { type SalvagedConfig, salvageConfig } from "./validate-salvage";

export interface ConfigError {
  path: string;
  code: string;
  message: string;
}
export type ConfigResult = { ok: true; config: TRoutingConfig } | { ok: false; errors: ConfigError[] };

export interface TimingMs {
  groupWait: number;
  groupInterval: number;
  repeatInterval: number;
}
/** Alertmanager's defaults (30s, 5m, 4h), applied at the root when the config leaves them out. */
export const ROOT_TIMING_MS: Readonly<TimingMs> = {
  groupWait: 30_000,
  groupInterval: 300_000,
  repeatInterval: 14_400_000,
};
/** "Bounded" waits: a delay longer than a day is a forgotten alert, not a wait. */
export const MAX_DELAY_MS = 86_400_000;
/** Any routing duration: a year. Wake-up times are now + a duration, stored as timestamps PostgreSQL must hold. */
export const MAX_ROUTING_DURATION_MS = 365 * 86_400_000;

export function jsonPath(segments: readonly PropertyKey[]): string {
  return segments.reduce<string>(
    (path, seg) => (typeof seg === "number" ? `${path}[${seg}]` : `${path}.${String(seg)}`),
    "$",
  );
}

const fromZod = (issues: readonly z.core.$ZodIssue[]): ConfigError[] =>
  issues.map((issue) => ({ path: jsonPath(issue.path), code: issue.code, message: issue.message }));

/** PagerDuty's Events API v2 integration (routing) keys are exactly this long. */
export const PAGERDUTY_ROUTING_KEY_LENGTH = 32;

export function validateRoutingConfig(input: unknown): ConfigResult {
  const parsed = ZRoutingConfig.safeParse(input);
  if (parsed.success) {
    const errors = checkTree(parsed.data);
    return errors.length > 0 ? { ok: false, errors } : { ok: true, config: parsed.data };
  }
  const shape = fromZod(parsed.error.issues);
  // A field that failed its shape was left out of the salvage; a rule that then misses it (the root's receiver)
  // would only repeat the shape error at the same path.
  const shapePaths = new Set(shape.map((error) => error.path));
  // Likewise a route whose matchers failed their shape lost them in the salvage: it is no catch-all.
  const brokenMatchers = (path: string) => shape.some((error) => error.path.startsWith(`${path}.matchers`));
  const tree = checkTree(salvageConfig(input)).filter(
    (error) =>
      !shapePaths.has(error.path) && !(error.code === "catch_all_not_last" && brokenMatchers(error.path)),
  );
  return { ok: false, errors: [...shape, ...tree] };
}

function checkTree(config: SalvagedConfig): ConfigError[] {
  const errors: ConfigError[] = [];
  const add = (path: string, code: string, message: string) => errors.push({ path, code, message });
  const channelNames = new Set<string>();
  config.channels.forEach((channel, i) => {
    if (channel.name === undefined) return;
    if (channelNames.has(channel.name))
      add(`$.channels[${i}].name`, "duplicate_channel", `channel "${channel.name}" is defined twice`);
    channelNames.add(channel.name);
    channel.targets.forEach((target, t) => {
      const field = target && secretFieldOf(target);
      const secret = field ? (target as Record<string, unknown>)[field] : undefined;
      if (field && typeof secret === "string" && hasEnvReference(secret))
        add(
          `$.channels[${i}].targets[${t}].${field}`,
          "unresolved_secret_reference",
          "an environment reference is resolved by `npm run routing` before sending; the server never stores one",
        );
      if (target?.type === "pagerduty" && target.routingKey.length !== PAGERDUTY_ROUTING_KEY_LENGTH)
        add(
          `$.channels[${i}].targets[${t}].routingKey`,
          "invalid_routing_key",
          `a PagerDuty routing (integration) key is ${PAGERDUTY_ROUTING_KEY_LENGTH} characters; this one has ${target.routingKey.length}`,
        );
    });
  });

  const matchers = (texts: readonly string[] | undefined, path: string): Matcher[] =>
    (texts ?? []).flatMap((text, i) => {
      const result = parseMatcher(text);
      if (result.ok) return [result.matcher];
      add(`${path}[${i}]`, result.code, result.message);
      return [];
    });
  const labelNames = (names: readonly string[], path: string, allowAll: boolean) =>
    names.forEach((name, i) => {
      if (allowAll && name === "..." && names.length === 1) return;
      if (!isKnownLabelName(name))
        add(`${path}[${i}]`, "unknown_label", `"${name}" is not a label alerts carry`);
    });
  const duration = (text: string | undefined, path: string): number | undefined => {
    if (text === undefined) return undefined;
    const ms = parseDuration(text);
    if (ms === null) add(path, "invalid_duration", `"${text}": units must be largest first and appear once`);
    else if (ms > MAX_ROUTING_DURATION_MS) add(path, "duration_too_long", "a duration is at most 365 days");
    return ms ?? undefined;
  };

  const root = config.route;
  if (root) checkRoutes(root, channelNames, { add, matchers, labelNames, duration });

  config.inhibitRules.forEach((rule, i) => {
    const path = `$.inhibitRules[${i}]`;
    matchers(rule.sourceMatchers, `${path}.sourceMatchers`);
    const targets = matchers(rule.targetMatchers, `${path}.targetMatchers`);
    labelNames(rule.equal ?? [], `${path}.equal`, false);
    const hit = protectedStatesTargeted(targets);
    if (rule.targetMatchers && targets.length === rule.targetMatchers.length && hit.length > 0)
      add(
        `${path}.targetMatchers`,
        "inhibits_protected_state",
        `could inhibit ${hit.join(" and ")}, which must always reach a person; add state!~"effect_unknown|false_success"`,
      );
  });

  const silenceIds = new Set<string>();
  config.silences.forEach((silence, i) => {
    const path = `$.silences[${i}]`;
    if (silence.id !== undefined && silenceIds.has(silence.id))
      add(`${path}.id`, "duplicate_silence", `silence "${silence.id}" is defined twice`);
    if (silence.id !== undefined) silenceIds.add(silence.id);
    matchers(silence.matchers, `${path}.matchers`);
    if (silence.startsAt && silence.endsAt && Date.parse(silence.endsAt) <= Date.parse(silence.startsAt))
      add(`${path}.endsAt`, "silence_window", "endsAt must be after startsAt");
  });
  return errors;
}

type Add = (path: string, code: string, message: string) => void;
interface Checks {
  add: Add;
  matchers: (texts: readonly string[] | undefined, path: string) => Matcher[];
  labelNames: (names: readonly string[], path: string, allowAll: boolean) => void;
  duration: (text: string | undefined, path: string) => number | undefined;
}

function checkRoutes(root: TRouteConfig, channelNames: ReadonlySet<string>, checks: Checks) {
  const { add, matchers, labelNames, duration } = checks;
  if (!root.receiver)
    add("$.route.receiver", "root_without_receiver", "the root route needs a default receiver");
  if (root.matchers && root.matchers.length > 0)
    add(
      "$.route.matchers",
      "root_has_matchers",
      "the root route matches every alert; move matchers to a child route",
    );
  if (root.continue)
    add("$.route.continue", "root_has_continue", "the root route has no siblings to continue to");

  const walk = (route: TRouteConfig, path: string, parent: TimingMs) => {
    if (route.receiver !== undefined && !channelNames.has(route.receiver))
      add(`${path}.receiver`, "unknown_receiver", `no channel named "${route.receiver}"`);
    matchers(route.matchers, `${path}.matchers`);
    labelNames(route.groupBy ?? [], `${path}.groupBy`, true);
    const timing: TimingMs = {
      groupWait: duration(route.groupWait, `${path}.groupWait`) ?? parent.groupWait,
      groupInterval: duration(route.groupInterval, `${path}.groupInterval`) ?? parent.groupInterval,
      repeatInterval: duration(route.repeatInterval, `${path}.repeatInterval`) ?? parent.repeatInterval,
    };
    // Check only where a timing is set, so one bad parent is not reported again on every child.
    if ([route.groupWait, route.groupInterval, route.repeatInterval].some((d) => d !== undefined))
      checkTiming(timing, path, add);
    const delay = duration(route.delay, `${path}.delay`);
    if (delay !== undefined && delay > MAX_DELAY_MS)
      add(`${path}.delay`, "delay_too_long", "a delay is bounded: at most 24h");
    if (route.confirmOnNextRecord && route.delay === undefined)
      add(
        `${path}.confirmOnNextRecord`,
        "confirm_without_delay",
        "confirmOnNextRecord only shortens a delay; set delay",
      );
    const children = route.routes ?? [];
    for (const [i, child] of children.entries()) {
      // A child without matchers takes every alert its parent sees: anywhere but last it silently starves its
      // later siblings (an "Add route" with empty matchers placed first caught every state).
      if ((child.matchers ?? []).length === 0 && i < children.length - 1)
        add(
          `${path}.routes[${i}]`,
          "catch_all_not_last",
          "a route without matchers catches every alert; give it matchers or make it the last route of its parent",
        );
      walk(child, `${path}.routes[${i}]`, timing);
    }
  };
  walk(root, "$.route", ROOT_TIMING_MS);
  checkRouteIds(root, add);
}

function checkTiming(t: TimingMs, path: string, add: Add) {
  // groupWait may be 0 ("notify at once", as Alertmanager allows); the intervals may not.
  if (t.groupInterval <= 0)
    add(`${path}.groupInterval`, "interval_not_positive", "groupInterval must be positive");
  if (t.repeatInterval <= 0)
    add(`${path}.repeatInterval`, "interval_not_positive", "repeatInterval must be positive");
  if (t.groupWait > t.groupInterval)
    add(`${path}.groupWait`, "interval_order", "groupWait must not exceed groupInterval");
  if (t.groupInterval > t.repeatInterval)
    add(`${path}.groupInterval`, "interval_order", "groupInterval must not exceed repeatInterval");
}

/** Route ids key notification groups, so two routes sharing one would merge their groups: refused at the later one. */
function checkRouteIds(root: TRouteConfig, add: Add) {
  const firstAt = new Map<string, string>();
  for (const { id, path } of routeIds(root)) {
    const first = firstAt.get(id);
    if (first === undefined) firstAt.set(id, path);
    else add(`${path}.id`, "duplicate_route_id", `route id "${id}" is already used by ${first}`);
  }
}
