import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { TRoutingConfig } from "@/lib/routing/config";
import { alertFingerprint } from "@/lib/routing/fingerprint";
import { verifySignature } from "@/lib/routing/sign";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import {
  FAST_ROUTING_ENV,
  HOOK_SECRET,
  routingApi,
  seedRecord,
  webhookBodies,
} from "@/tests/support/routing-helpers";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Delivery guarantees with a real receiver: signed bodies, retries with backoff up to a dead letter, every attempt
// logged; a restart between commit and delivery still delivers; two app instances on one database never send a
// notification twice.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: WebhookReceiver;
let apps: RunningApp[] = [];
let ingest: ReturnType<typeof apiClient>;
let admin: ReturnType<typeof routingApi>;
let key: string;
let closedPort: number;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SLACK_PATH = "/slack/T000/B000/XXXXSECRET";

function config(): TRoutingConfig {
  const hook = (path: string) => ({ type: "webhook" as const, url: receiver.url(path), secret: HOOK_SECRET });
  const suite = (name: string) => ({ matchers: [`label.suite="${name}"`], receiver: name });
  return {
    version: 1,
    channels: [
      { name: "main", ownerRole: "ops", targets: [hook("/hook/main")] },
      { name: "flaky", ownerRole: "ops", targets: [hook("/hook/flaky")] },
      { name: "dead", ownerRole: "ops", targets: [hook("/hook/dead")] },
      { name: "gone", ownerRole: "ops", targets: [hook("/hook/gone")] },
      {
        name: "pd",
        ownerRole: "on-call",
        targets: [
          { type: "pagerduty", routingKey: "PDKEY0123456789abcdef0123456789a", url: receiver.url("/pd") },
        ],
      },
      { name: "slack", ownerRole: "chat", targets: [{ type: "slack", url: receiver.url(SLACK_PATH) }] },
      // A free loopback port: nothing listens, the connection is refused.
      {
        name: "down",
        ownerRole: "ops",
        targets: [{ type: "webhook", url: `http://127.0.0.1:${closedPort}/hook`, secret: HOOK_SECRET }],
      },
    ],
    route: {
      receiver: "main",
      groupBy: ["server"],
      groupWait: "0s",
      groupInterval: "1s",
      repeatInterval: "1h",
      routes: ["flaky", "dead", "gone", "pd", "slack", "down"].map(suite),
    },
    inhibitRules: [],
    silences: [],
  };
}

const failing = (id: string, suite: string, server = `srv-${id}`) =>
  seedRecord("tool_failed", id, (r) => {
    r.labels = { suite };
    if (r.session.server) r.session.server.name = server;
  });
const post = async (records: HealthRecord[]) => {
  const response = await ingest.post(records);
  expect(response.status).toBe(200);
};
type DeliveryView = {
  id: string;
  channel: string;
  status: string;
  attempts: number;
  url: string;
  body: Record<string, unknown>;
  attemptLog: { statusCode: number | null; latencyMs: number; error: string | null }[];
};
const deliveries = async (channel: string): Promise<DeliveryView[]> =>
  (await admin.get(`/deliveries?channel=${channel}&limit=200`)).json.deliveries;

/** The channel's first delivery once it is dead, or as it stands after 10 s. */
async function firstDeadDelivery(channel: string): Promise<DeliveryView | undefined> {
  let delivery: DeliveryView | undefined;
  for (const deadline = Date.now() + 10_000; ; await sleep(100)) {
    [delivery] = await deliveries(channel);
    if (delivery?.status === "dead" || Date.now() >= deadline) return delivery;
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  closedPort = await portOutsideEphemeralRange();
  key = await createTestKey(db.url, "agent");
  // First instance: no background workers, as if the process died right after committing.
  const first = await startApp(db.url, { ...FAST_ROUTING_ENV, RECEIPT_DISABLE_WORKERS: "1" });
  apps.push(first);
  admin = routingApi(first.baseUrl, await adminCookie(first.baseUrl));
  await admin.saveConfig(config());
  ingest = apiClient(first.baseUrl, key);
  await post(Array.from({ length: 5 }, (_, i) => failing(`restart-${i}`, "restart")));
  await sleep(800);
  expect(receiver.received()).toHaveLength(0);
  await first.stop();
  // Then two instances on the same database.
  apps = await Promise.all([startApp(db.url, FAST_ROUTING_ENV), startApp(db.url, FAST_ROUTING_ENV)]);
  const [a] = apps as [RunningApp, RunningApp];
  admin = routingApi(a.baseUrl, await adminCookie(a.baseUrl));
  ingest = apiClient(a.baseUrl, key);
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await receiver?.stop();
  await db?.drop();
});

describe("delivery", () => {
  it("a restart between commit and delivery still delivers (the outbox is in the database)", async () => {
    await receiver.waitFor(() => webhookBodies(receiver.received("/hook/main")).length >= 5, 15_000);
    const chains = webhookBodies(receiver.received("/hook/main")).flatMap((b) =>
      b.alerts.map((a) => a.chainId),
    );
    expect(chains.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `chain:restart-${i}`));
  });

  it("two app instances on one database never send the same notification twice", async () => {
    const [a, b] = apps as [RunningApp, RunningApp];
    const before = receiver.received("/hook/main").length;
    // Ingest through both instances: 30 chains on 10 servers → 10 notification groups.
    const records = Array.from({ length: 30 }, (_, i) => failing(`twin-${i}`, "twin", `twin-srv-${i % 10}`));
    await Promise.all([
      apiClient(a.baseUrl, key).post(records.slice(0, 15)),
      apiClient(b.baseUrl, key).post(records.slice(15)),
    ]);
    const notified = () =>
      new Set(webhookBodies(receiver.received("/hook/main")).flatMap((x) => x.alerts.map((a) => a.chainId)));
    await receiver.waitFor(() => records.every((r) => notified().has(r.chainId)), 15_000);
    // Wait until nothing is pending (a group may legitimately send a follow-up), then give a duplicate time to land.
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(200)) {
      const pending = (await deliveries("main")).filter((d) => d.status === "pending");
      if (pending.length === 0) break;
    }
    await sleep(1500);
    // Both instances flush and send concurrently; each delivery row is sent once, and no body is sent twice.
    const received = receiver.received("/hook/main");
    const log = await deliveries("main");
    expect(received.length).toBe(log.length);
    expect(new Set(received.map((r) => r.body)).size).toBe(received.length);
    expect(log.every((d) => d.status === "delivered" && d.attempts === 1)).toBe(true);
    expect(received.length - before).toBeGreaterThanOrEqual(10);
  });

  it("every webhook is signed with HMAC-SHA256 over timestamp and body; a tampered body fails", () => {
    const [first] = receiver.received("/hook/main");
    if (!first) throw new Error("nothing received");
    expect(verifySignature(first.body, first.headers, HOOK_SECRET, Date.now())).toEqual({ ok: true });
    expect(verifySignature(`${first.body} `, first.headers, HOOK_SECRET, Date.now())).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(verifySignature(first.body, first.headers, "another-secret-000000", Date.now()).ok).toBe(false);
  });

  it("a receiver answering 500 then 200 gets exactly one successful delivery; both attempts are logged", async () => {
    receiver.answer("/hook/flaky", 500);
    await post([failing("flaky-1", "flaky")]);
    await receiver.waitFor(() => receiver.received("/hook/flaky").length >= 2, 10_000);
    await sleep(1000);
    const got = receiver.received("/hook/flaky");
    expect(got).toHaveLength(2);
    expect(got[1]?.body).toBe(got[0]?.body);
    const [delivery] = await deliveries("flaky");
    expect(delivery).toMatchObject({ status: "delivered", attempts: 2 });
    expect(delivery?.attemptLog.map((a) => [a.statusCode, a.error])).toEqual([
      [500, "HTTP 500"],
      [200, null],
    ]);
    expect(delivery?.attemptLog.every((a) => a.latencyMs >= 0)).toBe(true);
  });

  it("after the maximum attempts a delivery is a dead letter; retrying it delivers", async () => {
    receiver.answer("/hook/dead", 503, 503, 503);
    await post([failing("dead-1", "dead")]);
    await receiver.waitFor(() => receiver.received("/hook/dead").length >= 3, 10_000);
    await sleep(500);
    const [dead] = await deliveries("dead");
    expect(dead).toMatchObject({ status: "dead", attempts: 3 });
    expect(dead?.attemptLog.map((a) => a.statusCode)).toEqual([503, 503, 503]);
    expect((await admin.post(`/deliveries/${dead?.id}/retry`, {})).status).toBe(202);
    await receiver.waitFor(() => receiver.received("/hook/dead").length >= 4, 10_000);
    await sleep(300);
    const [retried] = await deliveries("dead");
    expect(retried).toMatchObject({ status: "delivered" });
    expect(retried?.attemptLog.map((a) => a.statusCode)).toEqual([503, 503, 503, 200]);
  });

  it("a permanent refusal (410) is dead at once; an unreachable target logs its network error", async () => {
    receiver.answer("/hook/gone", 410);
    await post([failing("gone-1", "gone")]);
    await receiver.waitFor(() => receiver.received("/hook/gone").length >= 1, 10_000);
    // Its outcome is recorded after the POST returns: on a busy machine that took more than a fixed half second.
    const gone = await firstDeadDelivery("gone");
    expect(gone).toMatchObject({ status: "dead", attempts: 1 });
    expect(receiver.received("/hook/gone")).toHaveLength(1); // refused for good: never sent again
    await post([failing("down-1", "down")]);
    const down = await firstDeadDelivery("down");
    expect(down).toMatchObject({ status: "dead", attempts: 3 });
    expect(down?.attemptLog.map((a) => [a.statusCode, a.error])).toEqual(
      Array(3).fill([null, "ECONNREFUSED"]),
    );
  });

  it("PagerDuty Events v2: trigger then resolve, dedup_key = the alert's fingerprint; the log masks the key", async () => {
    const record = failing("pd-1", "pd");
    await post([record]);
    await receiver.waitFor(() => receiver.received("/pd").length >= 1, 10_000);
    const trigger = receiver.received("/pd")[0]?.json as Record<string, unknown> & {
      payload: { severity: string };
    };
    expect(trigger).toMatchObject({
      routing_key: "PDKEY0123456789abcdef0123456789a",
      event_action: "trigger",
    });
    expect(trigger.dedup_key).toBe(alertFingerprint("chain:pd-1", "tool_failed"));
    expect(trigger.payload.severity).toBe("warning");
    const healthy = structuredClone(record);
    healthy.recordId = "rec:pd-1-healthy";
    healthy.observedAt = new Date(Date.parse(record.observedAt) + 60_000).toISOString();
    healthy.call = seedRecord("healthy", "x").call;
    await post([healthy]);
    await receiver.waitFor(() => receiver.received("/pd").length >= 2, 10_000);
    expect(receiver.received("/pd")[1]?.json).toEqual({
      routing_key: "PDKEY0123456789abcdef0123456789a",
      event_action: "resolve",
      dedup_key: trigger.dedup_key,
    });
    const logged = JSON.stringify(await deliveries("pd"));
    expect(logged).not.toContain("PDKEY0123456789abcdef0123456789a");
  });

  it("Slack-compatible targets get text + blocks; the log masks the webhook URL's secret path", async () => {
    await post([failing("slack-1", "slack")]);
    await receiver.waitFor(() => receiver.received(SLACK_PATH).length >= 1, 10_000);
    const message = receiver.received(SLACK_PATH)[0]?.json as { text: string; blocks: { type: string }[] };
    expect(message.text).toMatch(/^\[FIRING:1\] tool_failed/);
    expect(message.blocks[0]?.type).toBe("header");
    const [logged] = await deliveries("slack");
    expect(logged?.url).not.toContain("XXXXSECRET");
  });
});
