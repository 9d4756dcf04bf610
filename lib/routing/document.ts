// Routing kept as code: the whole config (channels, targets, route tree, inhibition, silences) as one YAML
// document — JSON is YAML, so an exported JSON file reads unchanged. Pure: text in, plain data out, and back.
// Problems carry a JSON path and, when they come from a text, the line and column it points at.
import { isCollection, LineCounter, parseDocument, Document as YamlDocument } from "yaml";
import { MASK, maskSecrets, type TRoutingConfig } from "./config";
import { ENV_REFERENCE, hasEnvReference, secretFieldOf } from "./secret-fields";
import type { ConfigError } from "./validate";

/** A problem in a routing document: a JSON path, and where it is in the text (1-based) when known. */
export interface DocumentError extends ConfigError {
  line?: number;
  column?: number;
}

export type ParsedDocument =
  | { ok: true; value: unknown; locate: (path: string) => { line: number; column: number } | undefined }
  | { ok: false; errors: DocumentError[] };

/** Anchors and aliases are YAML's; a file expanding into millions of nodes ("billion laughs") is refused. */
const MAX_ALIAS_COUNT = 100;

/** Parses a YAML or JSON text into plain data; syntax errors with line, column and the path of the node they hit. */
export function parseRoutingDocument(text: string): ParsedDocument {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const position = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((error) => {
        const at = position(error.pos[0]);
        return {
          path: pathAtOffset(doc, error.pos[0]),
          code: `yaml_${error.code.toLowerCase()}`,
          message: `line ${at.line}, column ${at.column}: ${firstLine(error.message)}`,
          ...at,
        };
      }),
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    return {
      ok: false,
      errors: [{ path: "$", code: "yaml_aliases", message: firstLine(String(error)), line: 1, column: 1 }],
    };
  }
  const locate = (path: string) => {
    // The nearest node that exists: a missing field is reported where its object starts.
    for (let segments = parseJsonPath(path); ; segments = segments.slice(0, -1)) {
      const node = segments.length === 0 ? doc.contents : doc.getIn(segments, true);
      const range = (node as { range?: [number, number, number] } | null)?.range;
      if (range) return position(range[0]);
      if (segments.length === 0) return undefined;
    }
  };
  return { ok: true, value, locate };
}

/** Adds the line and column of each error's path in the document it came from. */
export function locateErrors(
  errors: readonly ConfigError[],
  locate: (path: string) => { line: number; column: number } | undefined,
): DocumentError[] {
  return errors.map((error) => ({ ...error, ...locate(error.path) }));
}

const firstLine = (message: string) =>
  message.split("\n", 1)[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? "";

/** `$.route.routes[2].matchers[0]` → ["route", "routes", 2, "matchers", 0]. */
export function parseJsonPath(path: string): Array<string | number> {
  const segments: Array<string | number> = [];
  for (const match of path.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g))
    segments.push(match[2] !== undefined ? Number(match[2]) : (match[1] as string));
  return segments;
}

/** The JSON path of the deepest collection node whose text spans `offset` (where a syntax error sits). */
function pathAtOffset(doc: YamlDocument.Parsed, offset: number): string {
  let path = "$";
  let node: unknown = doc.contents;
  for (;;) {
    if (!isCollection(node)) return path;
    const items = (node as { items: unknown[] }).items;
    let next: unknown;
    for (const [index, item] of items.entries()) {
      const pair = item as { key?: { value?: unknown; range?: number[] }; value?: { range?: number[] } };
      const child = "key" in (item as object) ? pair.value : item;
      const range = (child as { range?: number[] } | null)?.range;
      const inside = range && offset >= (range[0] ?? 0) && offset <= (range[2] ?? range[1] ?? 0);
      if (inside && isCollection(child)) {
        const key = pair.key?.value;
        path += "key" in (item as object) ? `.${String(key)}` : `[${index}]`;
        next = child;
        break;
      }
    }
    if (next === undefined) return path;
    node = next;
  }
}

// Keys in the order people read them; keys not listed (none in a valid config) follow, sorted.
const ORDER: Record<string, readonly string[]> = {
  config: ["version", "channels", "route", "inhibitRules", "silences"],
  channel: ["name", "ownerRole", "targets"],
  target: ["type", "url", "secret", "routingKey"],
  route: [
    "id",
    "name",
    "matchers",
    "receiver",
    "continue",
    "severity",
    "groupBy",
    "groupWait",
    "groupInterval",
    "repeatInterval",
    "delay",
    "confirmOnNextRecord",
    "routes",
  ],
  inhibitRule: ["name", "sourceMatchers", "targetMatchers", "equal"],
  silence: ["id", "matchers", "startsAt", "endsAt", "createdBy", "comment"],
};

function ordered<T extends object>(value: T, kind: keyof typeof ORDER): T {
  const order = ORDER[kind] ?? [];
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  entries.sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries) as T;
}

type RouteLike = { routes?: RouteLike[] } & object;
const orderRoute = (route: RouteLike): RouteLike =>
  ordered({ ...route, ...(route.routes ? { routes: route.routes.map(orderRoute) } : {}) }, "route");

/** A config in its canonical key order, secrets as they are (callers mask first). */
export function canonicalConfig(config: TRoutingConfig): TRoutingConfig {
  return ordered(
    {
      ...config,
      channels: config.channels.map((channel) =>
        ordered({ ...channel, targets: channel.targets.map((t) => ordered(t, "target")) }, "channel"),
      ),
      route: orderRoute(config.route) as TRoutingConfig["route"],
      inhibitRules: config.inhibitRules.map((rule) => ordered(rule, "inhibitRule")),
      silences: config.silences.map((silence) => ordered(silence, "silence")),
    },
    "config",
  );
}

const HEADER = [
  'Receipt routing config (docs/ROUTING.md, "Routing as code").',
  `Secrets are masked (${MASK}#<channel>/<index>: keep the stored one) or \${env:NAME} references.`,
];

/** The config as a YAML document: stable key order, every secret masked. `version`: the server version it is. */
export function printRoutingDocument(config: TRoutingConfig, options: { version?: string } = {}): string {
  return printDocument(canonicalConfig(maskSecrets(config)), options.version);
}

/** Prints data that is already masked (or marked) as it is, in canonical order. */
export function printDocument(config: TRoutingConfig, version?: string): string {
  const doc = new YamlDocument(canonicalConfig(config));
  doc.commentBefore = [...HEADER, ...(version ? [`Server version: ${version}.`] : [])]
    .map((line) => ` ${line}`)
    .join("\n");
  return doc.toString({ lineWidth: 0 });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Calls `visit` on every target's credential field of a parsed (unvalidated) document; its result replaces it. */
export function mapSecretFields(
  value: unknown,
  visit: (secret: string, at: { path: string; type: string; channel: number; target: number }) => string,
): unknown {
  if (!isRecord(value) || !Array.isArray(value.channels)) return value;
  const channels = value.channels.map((channel, c) => {
    if (!isRecord(channel) || !Array.isArray(channel.targets)) return channel;
    const targets = channel.targets.map((target, t) => {
      if (!isRecord(target)) return target;
      const field = secretFieldOf(target);
      const secret = field ? target[field] : undefined;
      if (!field || typeof secret !== "string") return target;
      const path = `$.channels[${c}].targets[${t}].${field}`;
      return {
        ...target,
        [field]: visit(secret, { path, type: String(target.type), channel: c, target: t }),
      };
    });
    return { ...channel, targets };
  });
  return { ...value, channels };
}

export type ResolveResult = { ok: true; value: unknown } | { ok: false; errors: ConfigError[] };

/** The prefix a variable's name must have to be read by a routing file, unless the admin names others. */
export const DEFAULT_SECRET_ENV_PREFIXES = ["RECEIPT_SECRET_"] as const;

/** The CLI's own credentials: never resolvable, whatever prefixes are allowed. */
const NEVER_RESOLVED = new Set(["RECEIPT_KEY", "RECEIPT_URL"]);

/**
 * Replaces each `${env:NAME}` in a credential field with that variable's value. Only names with an allowed prefix
 * (`RECEIPT_SECRET_` unless the admin running the CLI sets RECEIPT_ROUTING_ENV_PREFIXES) resolve: a routing file
 * from a pull request must not be able to send the CLI's own environment (its admin key) to a URL it chose. A
 * variable not allowed, not set or empty is an error naming it; values are never part of a message.
 */
export function resolveSecretReferences(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  allowedPrefixes: readonly string[] = DEFAULT_SECRET_ENV_PREFIXES,
): ResolveResult {
  const errors: ConfigError[] = [];
  const allowed = (name: string) =>
    !NEVER_RESOLVED.has(name) && allowedPrefixes.some((prefix) => prefix !== "" && name.startsWith(prefix));
  const resolved = mapSecretFields(value, (secret, { path }) =>
    secret.replace(ENV_REFERENCE, (reference, name: string) => {
      if (!allowed(name)) {
        errors.push({
          path,
          code: "env_not_allowed",
          message: `environment variable ${name} may not be read by a routing file: only names starting with ${allowedPrefixes.join(" or ")} (RECEIPT_ROUTING_ENV_PREFIXES)`,
        });
        return reference;
      }
      const found = env[name];
      if (found) return found;
      errors.push({ path, code: "missing_env", message: `environment variable ${name} is not set` });
      return reference;
    }),
  );
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: resolved };
}

/** The prefixes RECEIPT_ROUTING_ENV_PREFIXES names (comma-separated), or the default when it is unset or empty. */
export function secretEnvPrefixes(setting: string | undefined): readonly string[] {
  const named = (setting ?? "")
    .split(",")
    .map((prefix) => prefix.trim())
    .filter((prefix) => prefix !== "");
  return named.length > 0 ? named : DEFAULT_SECRET_ENV_PREFIXES;
}

const PLACEHOLDER = { secret: "p".repeat(32), routingKey: "p".repeat(32) };

/**
 * For a check without the server or the environment: masked secrets and `${env:…}` references become valid
 * stand-ins, so validation judges everything else (the server checks the real secrets when the file is applied).
 */
export function withPlaceholderSecrets(value: unknown): unknown {
  return mapSecretFields(value, (secret, { type }) => {
    const standIn = secret.includes(MASK) || hasEnvReference(secret);
    if (!standIn) return secret;
    if (type === "slack") return `${originOf(secret) ?? "https://hooks.slack.com"}/placeholder`;
    return type === "pagerduty" ? PLACEHOLDER.routingKey : PLACEHOLDER.secret;
  });
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** What a changed secret shows in a diff: the mask (a secret is never printed) and that it changes. */
export const CHANGED_SECRET_MARK = " (new secret)";

/**
 * A config about to be applied, for a diff against the current one: secrets masked, and a secret that is not the one
 * stored for the same channel and target index marked with CHANGED_SECRET_MARK, so a rotated secret shows as a change.
 */
export function printProposedDocument(
  proposed: TRoutingConfig,
  current: TRoutingConfig,
  options: { version?: string } = {},
): string {
  const stored = new Map(current.channels.map((channel) => [channel.name, channel.targets]));
  const secretOf = (target: object | undefined): unknown => {
    const field = target && secretFieldOf(target);
    return field ? (target as Record<string, unknown>)[field] : undefined;
  };
  const masked = maskSecrets(proposed);
  const channels = masked.channels.map((channel, c) => ({
    ...channel,
    targets: channel.targets.map((maskedTarget, t) => {
      let target = maskedTarget;
      const before = stored.get(channel.name)?.[t];
      const now = proposed.channels[c]?.targets[t];
      // A webhook URL's own credential (its query) changed behind an unchanged mask: the URL shows the change.
      if (
        now?.type === "webhook" &&
        target.type === "webhook" &&
        target.url !== now.url &&
        before?.url !== now.url
      )
        target = { ...target, url: `${target.url}${CHANGED_SECRET_MARK}` };
      if (before && before.type === now?.type && secretOf(before) === secretOf(now)) return target;
      const field = secretFieldOf(target) as string;
      return { ...target, [field]: `${secretOf(target)}${CHANGED_SECRET_MARK}` };
    }),
  }));
  return printDocument({ ...masked, channels }, options.version);
}
