import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { TRoutingConfig } from "@/lib/routing/config";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { FAST_ROUTING_ENV, HOOK_SECRET, routingApi, seedRecord } from "@/tests/support/routing-helpers";
import { adminCookie } from "@/tests/support/dashboard-session";
import { type ScriptedReceiver, startScriptedReceiver } from "@/tests/support/scripted-receiver";
import { createTestDatabase } from "@/tests/support/test-database";

// Isolation per target with real receivers: hanging targets hold only their own deliveries; a 429 or 503 with
// Retry-After pauses its target (and only it) until then.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: ScriptedReceiver;
let app: RunningApp;
let ingest: ReturnType<typeof apiClient>;

const HANGING = 8;
const PER_TARGET = 4;

function config(): TRoutingConfig {
  const hook = (path: string) => ({ type: "webhook" as const, url: receiver.url(path), secret: HOOK_SECRET });
  const channel = (name: string, paths: string[]) => ({ name, ownerRole: "ops", targets: paths.map(hook) });
  return {
    version: 1,
    channels: [
      channel("main", ["/main"]),
      channel(
        "stuck",
        Array.from({ length: HANGING }, (_, i) => `/hang/${i}`),
      ),
      channel("healthy", ["/healthy"]),
      channel("limited", ["/limited"]),
      channel("maintenance", ["/maintenance"]),
      channel("bystander", ["/bystander"]),
      {
        name: "chat",
        ownerRole: "ops",
        targets: [{ type: "slack", url: receiver.url("/slack/T0/B0/SECRET") }],
      },
    ],
    route: {
      receiver: "main",
      groupBy: ["server"],
      groupWait: "0s",
      groupInterval: "1s",
      repeatInterval: "1h",
      routes: ["stuck", "healthy", "limited", "maintenance", "bystander", "chat"].map((name) => ({
        matchers: [`label.suite="${name}"`],
        receiver: name,
      })),
    },
    inhibitRules: [],
    silences: [],
  };
}

const failing = (id: string, suite: string) =>
  seedRecord("tool_failed", id, (r) => {
    r.labels = { suite };
  });
const post = async (records: HealthRecord[]) => {
  const response = await ingest.post(records);
  expect(response.status).toBe(200);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startScriptedReceiver((path) => (path.startsWith("/hang/") ? "hold" : { status: 200 }));
  const key = await createTestKey(db.url, "agent");
  app = await startApp(db.url, {
    ...FAST_ROUTING_ENV,
    // Long enough that the hanging targets are still hanging when the test looks; Retry-After of seconds not capped.
    RECEIPT_DELIVERY_TIMEOUT_MS: "30000",
    RECEIPT_DELIVERY_BACKOFF_MAX_MS: "10000",
    RECEIPT_DELIVERY_MAX_ATTEMPTS: "5",
    RECEIPT_DELIVERY_PER_TARGET: String(PER_TARGET),
  });
  await routingApi(app.baseUrl, await adminCookie(app.baseUrl)).saveConfig(config());
  ingest = apiClient(app.baseUrl, key);
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("delivery isolation", () => {
  it("8 hanging targets on one channel: another channel's page arrives promptly while they still hang", async () => {
    // 10 groups → 10 deliveries to each hanging target: every target fills its cap and keeps a backlog.
    await post(Array.from({ length: 10 }, (_, i) => failing(`stuck-${i}`, "stuck")));
    await receiver.waitFor(
      () => receiver.holding("/hang/") === HANGING * PER_TARGET,
      15_000,
      "every hanging target at its cap",
    );
    const started = Date.now();
    await post([failing("healthy-1", "healthy")]);
    const [page] = await receiver.waitFor(() => receiver.received("/healthy").length === 1, 5_000);
    expect(page).toBeDefined();
    const arrived = receiver.received("/healthy")[0]?.at ?? Number.POSITIVE_INFINITY;
    expect(arrived - started).toBeLessThan(1500);
    // The hanging targets were never given more than their cap, and they still hang.
    expect(receiver.holding("/hang/")).toBe(HANGING * PER_TARGET);
    for (let i = 0; i < HANGING; i++) expect(receiver.received(`/hang/${i}`)).toHaveLength(PER_TARGET);
  });

  it("429 with Retry-After: 2 → nothing more reaches that target for 2 s; other targets are unaffected", async () => {
    receiver.script("/limited", { status: 429, headers: { "retry-after": "2" } });
    await post([failing("limited-1", "limited")]);
    await receiver.waitFor(() => receiver.received("/limited").length === 1, 5_000);
    const refusedAt = receiver.received("/limited")[0]?.at ?? 0;
    // A second group for the paused target, and a page for another target, right after the 429.
    const sent = Date.now();
    await post([failing("limited-2", "limited"), failing("bystander-1", "bystander")]);
    await receiver.waitFor(() => receiver.received("/bystander").length === 1, 5_000);
    expect((receiver.received("/bystander")[0]?.at ?? 0) - sent).toBeLessThan(1500);
    expect(receiver.received("/limited")).toHaveLength(1);
    await receiver.waitFor(() => receiver.received("/limited").length === 3, 10_000, "the retry and group 2");
    const later = receiver.received("/limited").slice(1);
    for (const request of later) expect(request.at - refusedAt).toBeGreaterThanOrEqual(2000);
    // The retry carries the same delivery id, with the next attempt number.
    const [first] = receiver.received("/limited");
    const retry = later.find((r) => r.body === first?.body);
    expect(retry?.headers["receipt-delivery-id"]).toBe(first?.headers["receipt-delivery-id"]);
    expect([first?.headers["receipt-delivery-attempt"], retry?.headers["receipt-delivery-attempt"]]).toEqual([
      "1",
      "2",
    ]);
  });

  it("503 with an HTTP-date Retry-After: the retry is not before that date", async () => {
    const until = new Date(Date.now() + 3500);
    receiver.script("/maintenance", { status: 503, headers: { "retry-after": until.toUTCString() } });
    await post([failing("maintenance-1", "maintenance")]);
    await receiver.waitFor(() => receiver.received("/maintenance").length === 2, 10_000, "the retry");
    const [refused, retry] = receiver.received("/maintenance");
    // HTTP-dates have whole seconds: the retry waits until the second the receiver named.
    expect(retry?.at).toBeGreaterThanOrEqual(Date.parse(until.toUTCString()));
    expect((retry?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    await sleep(200);
    expect(receiver.received("/maintenance")).toHaveLength(2);
  });

  it("a Slack webhook gets at most a burst of 3, then 1 message per second", async () => {
    await post(Array.from({ length: 5 }, (_, i) => failing(`chat-${i}`, "chat")));
    await receiver.waitFor(() => receiver.received("/slack/T0/B0/SECRET").length === 5, 10_000);
    const at = receiver.received("/slack/T0/B0/SECRET").map((r) => r.at);
    // Five messages from a bucket of 3 refilled at 1/s need two more tokens: at least 2 s from first to last.
    expect((at[4] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(1900);
    expect((at[3] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(900);
  });
});
