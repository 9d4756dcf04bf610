import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRoutingConfig } from "@/lib/routing/config";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { FAST_ROUTING_ENV, HOOK_SECRET, routingApi, seedRecord } from "@/tests/support/routing-helpers";
import { adminCookie } from "@/tests/support/dashboard-session";
import { type ScriptedReceiver, startScriptedReceiver } from "@/tests/support/scripted-receiver";
import { createTestDatabase } from "@/tests/support/test-database";

// Duplicates a receiver can drop: the app is killed between its POST and the recording of the attempt; after a restart
// on the same database the lease ends, the delivery is sent again, and the receiver sees the same delivery id twice.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: ScriptedReceiver;
const apps: RunningApp[] = [];

// A short lease (timeout + margin), so the re-send after the crash comes within seconds.
const ENV = {
  ...FAST_ROUTING_ENV,
  RECEIPT_DELIVERY_TIMEOUT_MS: "2000",
  RECEIPT_DELIVERY_LEASE_MARGIN_MS: "500",
};

function config(): TRoutingConfig {
  return {
    version: 1,
    channels: [
      {
        name: "main",
        ownerRole: "ops",
        targets: [{ type: "webhook", url: receiver.url("/hook/main"), secret: HOOK_SECRET }],
      },
    ],
    route: {
      receiver: "main",
      groupBy: ["server"],
      groupWait: "0s",
      groupInterval: "1s",
      repeatInterval: "1h",
    },
    inhibitRules: [],
    silences: [],
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startScriptedReceiver();
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await receiver?.stop();
  await db?.drop();
});

describe("delivery id", () => {
  it("a crash between the POST and its record re-sends with the same Receipt-Delivery-Id", async () => {
    const key = await createTestKey(db.url, "agent");
    const first = await startApp(db.url, ENV);
    apps.push(first);
    await routingApi(first.baseUrl, await adminCookie(first.baseUrl)).saveConfig(config());
    // The receiver holds the first request open: the app has sent it and is waiting for the answer.
    receiver.script("/hook/main", "hold");
    expect((await apiClient(first.baseUrl, key).post([seedRecord("tool_failed", "crash-1")])).status).toBe(
      200,
    );
    await receiver.waitFor(() => receiver.holding("/hook/main") === 1, 10_000, "the held request");

    const exited = new Promise((resolve) => first.process.once("exit", resolve));
    first.process.kill("SIGKILL");
    await exited;
    apps.splice(apps.indexOf(first), 1); // stop() waits for an exit that has already happened
    await expect(fetch(`${first.baseUrl}/api/health`)).rejects.toThrow();

    const second = await startApp(db.url, ENV);
    apps.push(second);
    await receiver.waitFor(() => receiver.received("/hook/main").length === 2, 15_000, "the re-send");
    const [sent, resent] = receiver.received("/hook/main");
    expect(resent?.body).toBe(sent?.body);
    expect(sent?.headers["receipt-delivery-id"]).toMatch(/^\d+$/);
    expect(resent?.headers["receipt-delivery-id"]).toBe(sent?.headers["receipt-delivery-id"]);
    expect([sent?.headers["receipt-delivery-attempt"], resent?.headers["receipt-delivery-attempt"]]).toEqual([
      "1",
      "2",
    ]);
    // Not before the first claim's lease ended (timeout + margin from a claim made before the first POST).
    expect((resent?.at ?? 0) - (sent?.at ?? 0)).toBeGreaterThanOrEqual(2000);

    // Only the re-send's attempt is logged: the killed process never recorded (nor timed out) the first.
    const admin = routingApi(second.baseUrl, await adminCookie(second.baseUrl));
    let delivery: {
      id: string;
      status: string;
      attempts: number;
      attemptLog: { statusCode: number | null }[];
    };
    for (const deadline = Date.now() + 5000; ; await new Promise((r) => setTimeout(r, 100))) {
      [delivery] = (await admin.get("/deliveries?channel=main")).json.deliveries;
      if (delivery?.status === "delivered" || Date.now() > deadline) break;
    }
    expect(delivery).toMatchObject({
      id: sent?.headers["receipt-delivery-id"],
      status: "delivered",
      attempts: 2,
    });
    expect(delivery.attemptLog.map((a) => a.statusCode)).toEqual([200]);
  });
});
