import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// A group's later notification to a target waits while an earlier one to it is pending (a receiver never sees
// "resolved" before "firing"). Once the earlier one is recorded, the later one is claimed at once: the delivery
// engine does not claim again after every send, so the record says when it freed one. The safety tick is set far
// longer than the test allows, so only that explains a prompt second delivery.
const SAFETY_TICK_MS = 60_000;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let sql: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  app = await startApp(db.url, {
    RECEIPT_ALERT_TICK_MS: String(SAFETY_TICK_MS),
    RECEIPT_DELIVERY_TICK_MS: String(SAFETY_TICK_MS),
  });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});
afterAll(async () => {
  await sql?.end();
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("a group's next delivery", () => {
  it("waits for the one before it to the same target, then goes as soon as that one is recorded", async () => {
    const insert = (path: string, age: string) =>
      sql.query(
        `insert into deliveries (group_key, channel, target_index, target_type, url, body, headers, kind,
          alert_fingerprints, max_attempts, status, attempts, next_attempt_at, created_at)
        values ('g-unblock', 'ops', 0, 'webhook', $1, '{}', '{}', 'notification', '{}', 3, 'pending', 0,
          now() - $2::interval, now() - $2::interval)`,
        [receiver.url(path), age],
      );
    await insert("/hook/first", "2 seconds");
    await insert("/hook/second", "1 second");
    const woken = Date.now();
    await sql.query("select pg_notify('receipt_deliveries', '')");
    const all = await receiver.waitFor(
      (received) => received.some((r) => r.path === "/hook/second"),
      10_000,
      "both deliveries",
    );
    expect(all.map((r) => r.path)).toEqual(["/hook/first", "/hook/second"]);
    const [first, second] = all;
    expect(second?.at).toBeGreaterThanOrEqual(first?.at ?? Number.POSITIVE_INFINITY);
    expect((second?.at ?? 0) - woken).toBeLessThan(5_000);
  });
});
