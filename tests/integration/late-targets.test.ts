import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRoutingConfig } from "@/lib/routing/config";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import {
  alertsReceived,
  FAST_ROUTING_ENV,
  HOOK_SECRET,
  routingApi,
  seedRecord,
} from "@/tests/support/routing-helpers";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// A channel that gets its first target while its alerts fire: they are delivered within the group's groupInterval,
// once, instead of after repeatInterval (the flushes without a target advanced the group as if sent). Safety ticks
// are long: only the config save's wake-up and the group timer can explain the delivery.
const GROUP_INTERVAL_MS = 2_000;
const SLACK_MS = 700;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let admin: ReturnType<typeof routingApi>;
let sql: pg.Client;

function config(withTarget: boolean): TRoutingConfig {
  return {
    version: 1,
    channels: [
      {
        name: "late",
        ownerRole: "the team",
        targets: withTarget
          ? [{ type: "webhook", url: receiver.url("/hook/late"), secret: HOOK_SECRET }]
          : [],
      },
    ],
    route: {
      receiver: "late",
      groupBy: ["state"],
      groupWait: "0s",
      groupInterval: `${GROUP_INTERVAL_MS}ms`,
      repeatInterval: "1h",
    },
    inhibitRules: [],
    silences: [],
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  app = await startApp(db.url, {
    ...FAST_ROUTING_ENV,
    RECEIPT_ALERT_TICK_MS: "30000",
    RECEIPT_DELIVERY_TICK_MS: "30000",
  });
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});
afterAll(async () => {
  await sql?.end();
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hooks = () => receiver.received("/hook/late");

async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe("a channel gaining its first target", () => {
  it("gets the alerts already firing within groupInterval, once", async () => {
    await admin.saveConfig(config(false));
    const ingest = apiClient(app.baseUrl, await createTestKey(db.url, "agent", ["ingest"]));
    const response = await ingest.post([
      seedRecord("tool_failed", "late-1"),
      seedRecord("tool_failed", "late-2"),
    ]);
    expect(response.status).toBe(200);
    // The group is flushed without a target: recorded as sent to nobody.
    await eventually(
      async () => {
        const { rows } = await sql.query(
          "select cardinality(last_sent_fingerprints) as sent from notification_groups where receiver = 'late'",
        );
        return rows[0]?.sent === 2;
      },
      10_000,
      "the target-less flush",
    );
    expect(hooks()).toHaveLength(0);

    const saved = Date.now();
    await admin.saveConfig(config(true));
    const [first] = await receiver.waitFor(
      () => hooks().length > 0,
      GROUP_INTERVAL_MS + SLACK_MS,
      "the late target's notification",
    );
    expect((first?.at ?? Number.POSITIVE_INFINITY) - saved).toBeLessThanOrEqual(GROUP_INTERVAL_MS + SLACK_MS);
    expect(
      alertsReceived(hooks())
        .map((hit) => `${hit.alert.status} ${hit.alert.chainId}`)
        .sort(),
    ).toEqual(["firing chain:late-1", "firing chain:late-2"]);

    // Once: neither the next ticks nor a save that gives no channel a new target sends it again.
    await admin.saveConfig(config(true));
    await sleep(2 * GROUP_INTERVAL_MS + SLACK_MS);
    expect(hooks()).toHaveLength(1);
  });
});
