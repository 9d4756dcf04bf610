import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import type { TargetHealthAnswer } from "@/lib/routing/target-health";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { FAST_ROUTING_ENV, routingApi } from "@/tests/support/routing-helpers";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Failing deliveries show (issue 41 §3): each target's health — last success, last failure as a sentence, dead
// letters — from GET /api/v1/routing/targets/health, which the routing page and the dashboard's banner read; and a
// webhook URL no resolver could take is refused at save, at its field.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let admin: ReturnType<typeof routingApi>;
let readKey: string;
let closedPort: number;

function config(): TRoutingConfig {
  const draft = structuredClone(DEFAULT_ROUTING_CONFIG);
  const tool = draft.channels.find((channel) => channel.name === "tool-owner");
  if (!tool) throw new Error("the default config has a tool-owner channel");
  tool.targets = [
    { type: "webhook", url: receiver.url("/hook/ok"), secret: "health-test-secret-000001" },
    { type: "webhook", url: `http://127.0.0.1:${closedPort}/hook/gone`, secret: "health-test-secret-000002" },
  ];
  return draft;
}

const health = async () => {
  const response = await apiClient(app.baseUrl, readKey).get("/api/v1/routing/targets/health");
  expect(response.status).toBe(200);
  return ((await response.json()) as TargetHealthAnswer).targets.filter((t) => t.channel === "tool-owner");
};

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  closedPort = await portOutsideEphemeralRange();
  readKey = await createTestKey(db.url, "reader", ["read"]);
  app = await startApp(db.url, FAST_ROUTING_ENV);
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
  await admin.saveConfig(config());
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("target health", () => {
  it("before anything is sent every target is idle; the read needs a key or a session", async () => {
    expect(await health()).toEqual([
      expect.objectContaining({
        targetIndex: 0,
        type: "webhook",
        status: "idle",
        lastSuccessAt: null,
        dead: 0,
      }),
      expect.objectContaining({
        targetIndex: 1,
        type: "webhook",
        status: "idle",
        lastFailure: null,
        dead: 0,
      }),
    ]);
    const anonymous = await fetch(`${app.baseUrl}/api/v1/routing/targets/health`);
    expect(anonymous.status).toBe(401);
  });

  it("a test notification: the live target is delivering; the dead one is failing, said as a sentence, dead-lettered", async () => {
    expect((await admin.post("/test-notification", { channel: "tool-owner" })).status).toBe(202);
    let targets = await health();
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      targets = await health();
      if (targets[0]?.status === "ok" && targets[1]?.dead === 1) break;
      await new Promise((done) => setTimeout(done, 200));
    }
    const [live, gone] = targets;
    expect(live).toMatchObject({ status: "ok", lastFailure: null, dead: 0, retrying: 0 });
    expect(Date.parse(live?.lastSuccessAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect(gone).toMatchObject({
      status: "failing",
      lastSuccessAt: null,
      dead: 1,
      lastFailure: { sentence: "Nothing listens at that address: the connection was refused." },
    });
  });

  it("a host no resolver can take is refused at save with 422 at its field; nothing is saved", async () => {
    const bad = config();
    const tool = bad.channels.findIndex((channel) => channel.name === "tool-owner");
    const target = bad.channels[tool]?.targets[1];
    if (target?.type !== "webhook") throw new Error("the second target is a webhook");
    target.url = `https://${"a".repeat(2000)}.example/hook`;
    const response = await admin.put("/config", bad);
    expect(response.status).toBe(422);
    expect(response.json.error.issues).toEqual([
      expect.objectContaining({
        path: `$.channels[${tool}].targets[1].url`,
        message: "a host name of at most 253 characters, each label at most 63, none empty",
      }),
    ]);
    const long = config();
    const longTarget = long.channels[tool]?.targets[0];
    if (longTarget?.type !== "webhook") throw new Error("the first target is a webhook");
    longTarget.url = `${longTarget.url}?pad=${"p".repeat(2100)}`;
    const tooLong = await admin.put("/config", long);
    expect(tooLong.status).toBe(422);
    expect(tooLong.json.error.issues[0]).toMatchObject({
      path: `$.channels[${tool}].targets[0].url`,
      message: "a URL of at most 2,048 characters",
    });
    const current = await admin.get("/config");
    expect(JSON.stringify(current.json.config)).not.toContain("aaaaaaaaaa");
  });
});
