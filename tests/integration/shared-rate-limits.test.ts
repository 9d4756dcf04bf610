import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRoutingConfig } from "@/lib/routing/config";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { FAST_ROUTING_ENV, routingApi, seedRecord } from "@/tests/support/routing-helpers";
import { type ScriptedReceiver, startScriptedReceiver } from "@/tests/support/scripted-receiver";
import { createTestDatabase } from "@/tests/support/test-database";

// Issue 39 §9: two app instances on one database send to a Slack webhook at Slack's documented rate together (1 a
// second after a burst of 3), not each at it; and a receiver's Retry-After holds the target's waiting deliveries for
// every instance, not only the one that was told.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: ScriptedReceiver;
const apps: RunningApp[] = [];
let key: string;

const SLACK_PATH = "/services/T0SHARED/B0SHARED/ratelimited";

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startScriptedReceiver(() => ({ status: 200 }));
  key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  // A Retry-After is honoured up to the longest backoff: 5 s here, so the receiver's 3 s pause is kept whole.
  const env = { ...FAST_ROUTING_ENV, RECEIPT_DELIVERY_BACKOFF_MAX_MS: "5000" };
  for (let i = 0; i < 2; i++) apps.push(await startApp(db.url, env, 60_000));
  const config: TRoutingConfig = {
    version: 1,
    channels: [
      { name: "chat", ownerRole: "chat", targets: [{ type: "slack", url: receiver.url(SLACK_PATH) }] },
      {
        name: "hook",
        ownerRole: "ops",
        targets: [{ type: "webhook", url: receiver.url("/hook"), secret: "shared-pause-secret-0123456789" }],
      },
    ],
    route: {
      receiver: "chat",
      groupBy: ["..."],
      groupWait: "0s",
      groupInterval: "1s",
      repeatInterval: "1h",
      routes: [{ matchers: ['state="tool_failed"'], receiver: "hook" }],
    },
    inhibitRules: [],
    silences: [],
  };
  const first = apps[0] as RunningApp;
  await routingApi(first.baseUrl, await adminCookie(first.baseUrl)).saveConfig(config);
}, 180_000);
afterAll(async () => {
  for (const app of apps) await app.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("two instances, one Slack webhook", () => {
  it("send at the webhook's rate together: a burst of 3, then one a second", async () => {
    const records = Array.from({ length: 8 }, (_, i) => seedRecord("false_success", `shared-rate-${i}`));
    // No token can be taken before the records are posted. (Not the first arrival: routed at commit, the first send
    // leaves while its instance still answers the POST, and its arrival may trail its token by a few hundred ms.)
    const start = Date.now();
    // Half through each instance: both wake, both claim the Slack target's deliveries.
    expect((await apiClient(apps[0]?.baseUrl ?? "", key).post(records.slice(0, 4))).status).toBe(200);
    expect((await apiClient(apps[1]?.baseUrl ?? "", key).post(records.slice(4))).status).toBe(200);
    const got = await receiver.waitFor(
      () => receiver.received(SLACK_PATH).length >= 8,
      30_000,
      "eight Slack notifications",
    );
    const times = got.filter((r) => r.path === SLACK_PATH).map((r) => r.at);
    // The k-th send (from 0) cannot come before (k - burst + 1) seconds: 250 ms of slack for timers and clocks.
    times.forEach((at, k) => {
      expect(at - start, `send ${k}`).toBeGreaterThanOrEqual(Math.max(0, k - 2) * 1000 - 250);
    });
  });
});

describe("a receiver's Retry-After", () => {
  it("holds the target's waiting deliveries on both instances until it ends", async () => {
    receiver.script("/hook", { status: 429, headers: { "retry-after": "3" } });
    const records = Array.from({ length: 6 }, (_, i) => seedRecord("tool_failed", `shared-pause-${i}`));
    expect((await apiClient(apps[0]?.baseUrl ?? "", key).post(records.slice(0, 1))).status).toBe(200);
    const [refused] = await receiver.waitFor(() => receiver.received("/hook").length >= 1, 15_000, "the 429");
    expect(refused).toBeDefined();
    // The instance that was told records the pause as soon as the answer is in; give it that moment.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Sent to the other instance while the pause runs: it holds them too.
    expect((await apiClient(apps[1]?.baseUrl ?? "", key).post(records.slice(1))).status).toBe(200);
    await receiver.waitFor(
      () => receiver.received("/hook").length >= 6,
      20_000,
      "every notification after the pause",
    );
    const after = receiver.received("/hook").slice(1);
    for (const request of after) expect(request.at - (refused?.at ?? 0)).toBeGreaterThanOrEqual(3000 - 250);
  });
});
