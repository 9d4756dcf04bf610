// Routing config as data: zod schemas for what teams export, keep in git and import again.
// Shape only; whole-tree rules (receivers exist, interval order, regexes…) live in validate.ts.
import "../zod-without-eval";
import { z } from "zod";
import { isTimestampInRange } from "../contract/timestamp";
import { DURATION_PATTERN } from "./duration";
import { ROUTE_ID_PATTERN } from "./route-id";
import { SEVERITIES } from "./types";

export const PAGERDUTY_EVENTS_URL = "https://events.pagerduty.com/v2/enqueue";

const ZName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/, "lowercase letters, digits, '_', '.', '-'; at most 63 characters");
/** A host name DNS can carry (RFC 1035): 253 characters at most, 63 a label. An address literal is not one. */
const resolvableHost = (url: string): boolean => {
  // An unparsable URL is z.url()'s to report: this check runs too, and must not throw on it.
  if (!URL.canParse(url)) return true;
  const host = new URL(url).hostname;
  if (host.startsWith("[") || /^[\d.]+$/.test(host)) return true;
  return host.length <= 253 && host.split(".").every((label) => label.length > 0 && label.length <= 63);
};
const ZHttpUrl = z
  .url({ protocol: /^https?$/, error: "an http(s) URL" })
  .max(2048, "a URL of at most 2,048 characters")
  .refine(resolvableHost, "a host name of at most 253 characters, each label at most 63, none empty");
export const ZDuration = z.string().regex(DURATION_PATTERN, 'a duration like "30s", "5m", "4h" or "1h30m"');
export const ZMatcherText = z.string().min(1).max(1024);
/** An ISO 8601 date-time with a zone, in years 0001–9999 (what PostgreSQL stores). */
export const ZTimestamp = z.iso
  .datetime({ offset: true })
  .refine((value) => isTimestampInRange(Date.parse(value)), "a date-time in years 0001 to 9999");

export const ZWebhookTarget = z.strictObject({
  type: z.literal("webhook"),
  url: ZHttpUrl,
  // HMAC key: long enough that it cannot be guessed, short enough to paste.
  secret: z.string().min(16).max(256),
});
export const ZSlackTarget = z.strictObject({ type: z.literal("slack"), url: ZHttpUrl });
export const ZPagerDutyTarget = z.strictObject({
  type: z.literal("pagerduty"),
  routingKey: z.string().min(1).max(128),
  // Overridable so tests can point it at a local receiver.
  url: ZHttpUrl.default(PAGERDUTY_EVENTS_URL),
});
export const ZTarget = z.discriminatedUnion("type", [ZWebhookTarget, ZSlackTarget, ZPagerDutyTarget]);

export const ZChannel = z.strictObject({
  name: ZName,
  ownerRole: z.string().min(1).max(128),
  // Zero targets is allowed: the shipped defaults name the owners before anyone configures delivery.
  targets: z.array(ZTarget).max(16),
});

export interface TRouteConfig {
  /** Stable identity in group keys (route-id.ts); defaults to a hash of the route's matcher path. */
  id?: string;
  /** Display name for the route test and the UI; routing never uses it. */
  name?: string;
  receiver?: string;
  matchers?: string[];
  continue?: boolean;
  /** Label names, or ["..."] for "every label" (one group per alert). */
  groupBy?: string[];
  groupWait?: string;
  groupInterval?: string;
  repeatInterval?: string;
  /** Overrides the alert's severity (never below critical for effect_unknown/false_success). */
  severity?: (typeof SEVERITIES)[number];
  /** Hold a new alert this long before it may notify; it notifies only if still firing then. */
  delay?: string;
  /** With `delay`: stop waiting as soon as a newer record of the chain is still in the state. */
  confirmOnNextRecord?: boolean;
  routes?: TRouteConfig[];
}

/** A route's own fields (all but `routes`), field by field: validation salvages the valid ones of a broken route. */
export const ZRouteFields = {
  id: z
    .string()
    .regex(
      ROUTE_ID_PATTERN,
      "letters, digits, '_', '.', '-', starting with a letter or digit; at most 63 characters",
    )
    .optional(),
  name: z.string().min(1).max(128).optional(),
  receiver: ZName.optional(),
  matchers: z.array(ZMatcherText).max(32).optional(),
  continue: z.boolean().optional(),
  groupBy: z.array(z.string().min(1).max(64)).max(16).optional(),
  groupWait: ZDuration.optional(),
  groupInterval: ZDuration.optional(),
  repeatInterval: ZDuration.optional(),
  severity: z.enum(SEVERITIES).optional(),
  delay: ZDuration.optional(),
  confirmOnNextRecord: z.boolean().optional(),
};
export const MAX_CHILD_ROUTES = 64;

export const ZRoute: z.ZodType<TRouteConfig> = z.strictObject({
  ...ZRouteFields,
  get routes() {
    return z.array(ZRoute).max(MAX_CHILD_ROUTES).optional();
  },
});

export const ZSilence = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/),
  matchers: z.array(ZMatcherText).min(1).max(32),
  startsAt: ZTimestamp,
  endsAt: ZTimestamp,
  createdBy: z.string().min(1).max(128),
  comment: z.string().min(1).max(1024),
});

export const ZInhibitRule = z.strictObject({
  name: z.string().min(1).max(128).optional(),
  sourceMatchers: z.array(ZMatcherText).min(1).max(32),
  targetMatchers: z.array(ZMatcherText).min(1).max(32),
  /** Labels that must be present and equal on source and target (e.g. ["server"]). */
  equal: z.array(z.string().min(1).max(64)).max(16),
});

export const ZRoutingConfig = z.strictObject({
  version: z.literal(1),
  channels: z.array(ZChannel).max(256),
  route: ZRoute,
  inhibitRules: z.array(ZInhibitRule).max(64).default([]),
  silences: z.array(ZSilence).max(1024).default([]),
});

export type TTarget = z.infer<typeof ZTarget>;
export type TWebhookTarget = z.infer<typeof ZWebhookTarget>;
export type TSlackTarget = z.infer<typeof ZSlackTarget>;
export type TPagerDutyTarget = z.infer<typeof ZPagerDutyTarget>;
export type TChannel = z.infer<typeof ZChannel>;
export type TSilence = z.infer<typeof ZSilence>;
export type TInhibitRule = z.infer<typeof ZInhibitRule>;
/** A config after parsing (defaults applied). */
export type TRoutingConfig = z.infer<typeof ZRoutingConfig>;
/** A config as authored or imported (optional fields may be missing). */
export type TRoutingConfigInput = z.input<typeof ZRoutingConfig>;

/** What a masked secret starts with. The rest is a reference to the stored target it stands for. */
export const MASK = "••••••";

/**
 * The masked form of a target's secret: MASK plus "#<channel>/<index>", the target it was read from.
 * Saving a config that still holds the token keeps that target's stored secret (see unmaskSecrets), so
 * the UI and an exported file can round-trip without ever carrying a credential.
 */
export const maskToken = (channel: string, index: number): string => `${MASK}#${channel}/${index}`;

/** A URL that carries a credential of its own: a user or password, or a query (`?token=…`, `?key=…`). */
export function urlCarriesCredential(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "" || parsed.search !== "";
  } catch {
    return false;
  }
}

/** Such a URL as shown: scheme, host and path; its user, password and query replaced by the mask (`after`). */
export function maskUrlCredential(url: string, after: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}?${after}`;
}

/**
 * A copy safe to show or export for review: webhook secrets, routing keys and Slack URLs masked, and a webhook URL's
 * own credential (user, password, query) too.
 */
export function maskSecrets(config: TRoutingConfig): TRoutingConfig {
  const maskTarget = (channel: string, target: TTarget, index: number): TTarget => {
    const token = maskToken(channel, index);
    switch (target.type) {
      case "webhook":
        return urlCarriesCredential(target.url)
          ? { ...target, url: maskUrlCredential(target.url, token), secret: token }
          : { ...target, secret: token };
      case "slack":
        // Slack incoming-webhook URLs embed their credential in the path.
        return { ...target, url: `${new URL(target.url).origin}/${token}` };
      case "pagerduty":
        return { ...target, routingKey: token };
    }
  };
  return {
    ...config,
    channels: config.channels.map((c) => ({
      ...c,
      targets: c.targets.map((target, index) => maskTarget(c.name, target, index)),
    })),
  };
}
