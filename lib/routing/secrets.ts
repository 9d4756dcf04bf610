// Saving a config that was read masked: each masked token ("••••••#<channel>/<index>") is replaced by
// the secret of the stored target it names, so secrets never have to travel back to the server.
// The token is checked against what it claims to stand for (same type, same URL or Slack host):
// a token pasted from another install, or left on a target whose URL was changed, is refused
// rather than silently signing with someone else's key.
import { MASK, PAGERDUTY_EVENTS_URL, type TRoutingConfig, type TTarget } from "./config";
import { type LoadResult, loadRoutingConfig } from "./compile";
import { SECRET_FIELD } from "./secret-fields";
import type { ConfigError } from "./validate";

/** A URL's scheme, host and path: what a masked webhook URL still shows of the stored one. */
const withoutCredential = (url: unknown): string | undefined => {
  try {
    if (typeof url !== "string") return undefined;
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
};

/**
 * A webhook URL whose credential was masked (`https://host/path?••••••#<channel>/<index>`) gets the stored target's
 * URL back when that target is a webhook at the same scheme, host and path; otherwise the error says to enter it.
 */
function restoreWebhookUrl(
  target: Record<string, unknown>,
  stored: TRoutingConfig,
  path: string,
  errors: ConfigError[],
): Record<string, unknown> {
  const url = target.url;
  if (target.type !== "webhook" || typeof url !== "string") return target;
  const at = url.indexOf(`?${MASK}`);
  if (at < 0) return target;
  const ref = TOKEN.exec(url.slice(at + 1));
  const source = ref ? stored.channels.find((s) => s.name === ref[1])?.targets[Number(ref[2])] : undefined;
  if (source?.type === "webhook" && withoutCredential(source.url) === withoutCredential(url))
    return { ...target, url: source.url };
  errors.push({
    path,
    code: "masked_secret_unresolved",
    message: "this masked URL no longer matches the stored target it came from; enter the URL again",
  });
  return target;
}

/** The config with every masked secret restored that could be; `errors` for those that could not. */
export type UnmaskResult =
  | { ok: true; value: unknown }
  | { ok: false; errors: ConfigError[]; value: unknown };

const TOKEN = /^••••••#([a-z0-9][a-z0-9_.-]{0,62})\/(\d{1,2})$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The masked part of a field value, or undefined when the value is a real secret. */
function maskedPart(type: TTarget["type"], value: string): string | undefined {
  if (type !== "slack") return value.startsWith(MASK) ? value : undefined;
  const at = value.indexOf(`/${MASK}`);
  return at >= 0 ? value.slice(at + 1) : undefined;
}

const origin = (url: unknown): string | undefined => {
  try {
    return typeof url === "string" ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

/** Does the stored target still match what the incoming one says about itself? */
function sameTarget(incoming: Record<string, unknown>, stored: TTarget): boolean {
  switch (stored.type) {
    case "webhook":
      return incoming.url === stored.url;
    case "pagerduty":
      return (incoming.url ?? PAGERDUTY_EVENTS_URL) === stored.url;
    case "slack":
      return origin(incoming.url) === origin(stored.url);
  }
}

const secretOf = (target: TTarget): string =>
  target.type === "webhook" ? target.secret : target.type === "pagerduty" ? target.routingKey : target.url;

export function unmaskSecrets(input: unknown, stored: TRoutingConfig): UnmaskResult {
  if (!isRecord(input) || !Array.isArray(input.channels)) return { ok: true, value: input };
  const errors: ConfigError[] = [];
  const channels = input.channels.map((channel, c) => {
    if (!isRecord(channel) || !Array.isArray(channel.targets)) return channel;
    const targets = channel.targets.map((found, t) => {
      if (!isRecord(found)) return found;
      const target = restoreWebhookUrl(found, stored, `$.channels[${c}].targets[${t}].url`, errors);
      const type = target.type as TTarget["type"];
      const field = SECRET_FIELD[type];
      const value = field ? target[field] : undefined;
      if (typeof value !== "string") return target;
      const masked = maskedPart(type, value);
      if (masked === undefined) return target;
      const path = `$.channels[${c}].targets[${t}].${field}`;
      const ref = TOKEN.exec(masked);
      const source = ref
        ? stored.channels.find((s) => s.name === ref[1])?.targets[Number(ref[2])]
        : undefined;
      if (!source || source.type !== type || !sameTarget(target, source)) {
        errors.push({
          path,
          code: "masked_secret_unresolved",
          message: ref
            ? "this masked secret no longer matches the stored target it came from; enter the secret again"
            : "a masked secret without its reference cannot be restored; enter the secret",
        });
        return target;
      }
      return { ...target, [field]: secretOf(source) };
    });
    return { ...channel, targets };
  });
  const value = { ...input, channels };
  return errors.length > 0 ? { ok: false, errors, value } : { ok: true, value };
}

/**
 * A config as edited or imported (masked secrets and all) checked in one pass: the secrets that cannot be restored and
 * every validation problem of the rest are reported together. A masked secret left in place is not reported a second
 * time by the rule it then breaks (a masked PagerDuty key is not 32 characters).
 */
export function loadEditedConfig(input: unknown, stored: TRoutingConfig): LoadResult {
  const unmasked = unmaskSecrets(input, stored);
  const loaded = loadRoutingConfig(unmasked.value);
  if (unmasked.ok) return loaded;
  const maskedPaths = new Set(unmasked.errors.map((error) => error.path));
  const rest = loaded.ok ? [] : loaded.errors.filter((error) => !maskedPaths.has(error.path));
  return { ok: false, errors: [...unmasked.errors, ...rest] };
}
