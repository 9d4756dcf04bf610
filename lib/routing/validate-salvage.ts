// When a config fails its shape check, the whole-tree rules still run on what did parse, so one validation reports
// every problem at once. Each object is rebuilt from those of its fields that parse on their own; an element that
// does not parse at all becomes an empty placeholder, which keeps its siblings' indices (their JSON paths) right.
import type { z } from "zod";
import {
  type TChannel,
  type TInhibitRule,
  type TRouteConfig,
  type TSilence,
  type TTarget,
  ZChannel,
  ZInhibitRule,
  ZRouteFields,
  ZSilence,
  ZTarget,
} from "./config";

/** A config as far as it parsed: every field optional, unparsed targets undefined. */
export interface SalvagedConfig {
  channels: Array<{ name?: string; targets: Array<TTarget | undefined> }>;
  /** Undefined when `route` is not an object at all (its shape error says so). */
  route?: TRouteConfig;
  inhibitRules: Array<Partial<TInhibitRule>>;
  silences: Array<Partial<TSilence>>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function salvageFields<T>(shape: Record<string, z.ZodType>, raw: unknown): Partial<T> {
  if (!isRecord(raw)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(shape)) {
    if (!(key in raw)) continue;
    const parsed = schema.safeParse(raw[key]);
    if (parsed.success && parsed.data !== undefined) out[key] = parsed.data;
  }
  return out as Partial<T>;
}

function salvageRoute(raw: unknown): TRouteConfig {
  const route = salvageFields<TRouteConfig>(ZRouteFields, raw);
  const children = isRecord(raw) ? arrayOf(raw.routes) : [];
  return children.length > 0 ? { ...route, routes: children.map(salvageRoute) } : route;
}

const { targets: _targets, ...channelFields } = ZChannel.shape;

function salvageChannel(raw: unknown): SalvagedConfig["channels"][number] {
  const fields = salvageFields<TChannel>(channelFields, raw);
  const targets = isRecord(raw) ? arrayOf(raw.targets) : [];
  return {
    ...(fields.name !== undefined ? { name: fields.name } : {}),
    targets: targets.map((target) => {
      const parsed = ZTarget.safeParse(target);
      return parsed.success ? parsed.data : undefined;
    }),
  };
}

export function salvageConfig(input: unknown): SalvagedConfig {
  const raw = isRecord(input) ? input : {};
  return {
    channels: arrayOf(raw.channels).map(salvageChannel),
    ...(isRecord(raw.route) ? { route: salvageRoute(raw.route) } : {}),
    inhibitRules: arrayOf(raw.inhibitRules).map((rule) =>
      salvageFields<TInhibitRule>(ZInhibitRule.shape, rule),
    ),
    silences: arrayOf(raw.silences).map((silence) => salvageFields<TSilence>(ZSilence.shape, silence)),
  };
}
