import type { HealthRecord } from "@/lib/contract";
import type { TRouteConfig, TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import type { WebhookBody } from "@/lib/routing/payload-webhook";
import { liveCase } from "./dashboard-records";
import type { WebhookReceiver } from "./webhook-receiver";
import type { Received } from "./scripted-receiver";

/** Fast worker ticks and retries, so a routing scenario takes seconds (production defaults are in settings.ts). */
export const FAST_ROUTING_ENV = {
  RECEIPT_ALERT_TICK_MS: "50",
  RECEIPT_DELIVERY_TICK_MS: "50",
  RECEIPT_DELIVERY_BACKOFF_MS: "100",
  RECEIPT_DELIVERY_BACKOFF_MAX_MS: "400",
  RECEIPT_DELIVERY_MAX_ATTEMPTS: "3",
  RECEIPT_DELIVERY_TIMEOUT_MS: "2000",
  RECEIPT_PUBLIC_URL: "https://receipt.example.com",
};

export const HOOK_SECRET = "test-hook-secret-0123456789";
export const hookPath = (channel: string) => `/hook/${channel}`;

/** JSON calls to the routing API as a signed-in admin. */
export function routingApi(baseUrl: string, cookie: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}/api/v1/routing${path}`, {
      method,
      headers: { cookie, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: response JSON is checked by the tests' expect() calls
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: response.status, json, text, response };
  };
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body: unknown) => call("POST", path, body),
    put: (path: string, body: unknown, headers?: Record<string, string>) => call("PUT", path, body, headers),
    del: (path: string) => call("DELETE", path),
    /** Saves a config and fails the test when it is refused. */
    saveConfig: async (config: unknown) => {
      const saved = await call("PUT", "/config", config);
      if (saved.status !== 200) throw new Error(`config refused: ${saved.text}`);
      return saved.json;
    },
  };
}

/**
 * The shipped default routing with a signed webhook on every channel (path /hook/<channel>) and short timings.
 * `change` may edit the copy (route delays, intervals…).
 */
export function hookedDefaults(
  receiver: WebhookReceiver,
  change?: (config: TRoutingConfig) => void,
): TRoutingConfig {
  const config = structuredClone(DEFAULT_ROUTING_CONFIG);
  for (const channel of config.channels)
    channel.targets = [{ type: "webhook", url: receiver.url(hookPath(channel.name)), secret: HOOK_SECRET }];
  Object.assign(config.route, { groupWait: "200ms", groupInterval: "1s", repeatInterval: "1h" });
  for (const route of config.route.routes ?? []) if (route.delay) route.delay = "1500ms";
  change?.(config);
  return config;
}

/** One channel, "team", whose one target is a signed webhook to `url`; a group a chain, sent at once (groupWait 0s). */
export function teamWebhookRouting(url: string, groupInterval = "1s"): TRoutingConfig {
  return {
    version: 1,
    channels: [
      { name: "team", ownerRole: "the team", targets: [{ type: "webhook", url, secret: HOOK_SECRET }] },
    ],
    route: { receiver: "team", groupBy: ["chain"], groupWait: "0s", groupInterval, repeatInterval: "1h" },
    inhibitRules: [],
    silences: [],
  };
}

export const findRoute = (config: TRoutingConfig, name: string): TRouteConfig => {
  const found = config.route.routes?.find((r) => r.name === name);
  if (!found) throw new Error(`no route named ${name}`);
  return found;
};

/** Webhook notifications received, parsed. */
export const webhookBodies = (received: Received[]): (WebhookBody & { path: string })[] =>
  received.flatMap((r) => {
    const body = r.json as WebhookBody | null;
    return body?.version === "receipt.alerts.v1" ? [{ ...body, path: r.path }] : [];
  });

/** Every (path, alert) pair received, for "which channel got which chain". */
export const alertsReceived = (received: Received[]) =>
  webhookBodies(received).flatMap((body) => body.alerts.map((alert) => ({ path: body.path, body, alert })));

// As if just observed: the fixture's own dates are fixed, and once the wall clock passes the long-running task's
// deadline the app's deadline worker would rightly move that chain out of `working` mid-test.
const seedByState = (state: string): HealthRecord => liveCase("routing", state);

/**
 * A seed record in `state`, made the only chain of its own session and server so tests do not interact through
 * inhibition or the session-wide stale-catalog re-discovery.
 */
export function seedRecord(state: string, id: string, change?: (record: HealthRecord) => void): HealthRecord {
  const record = seedByState(state);
  record.recordId = `rec:${id}`;
  record.chainId = `chain:${id}`;
  record.session.id = `sess:${id}`;
  if (record.session.server) record.session.server.name = `srv-${id}`;
  change?.(record);
  return record;
}
