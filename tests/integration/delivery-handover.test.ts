import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Deliveries a commit of this instance inserts are handed to its engine, which claims them by id (no search of the
// table for due rows) under the due claim's rules: the engine is called directly, on a real PostgreSQL, with a real
// receiver, as the server's own commits call it (wake-notify.ts announceDeliveries).
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: WebhookReceiver;
let lib: {
  sql: typeof import("@/lib/server/db/sql");
  delivery: typeof import("@/lib/server/routing/delivery-worker");
  deliveries: typeof import("@/lib/server/db/routing-deliveries");
  pauses: typeof import("@/lib/server/db/routing-rate-buckets");
};

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  process.env.RECEIPT_DELIVERY_TIMEOUT_MS = "60000";
  process.env.RECEIPT_DELIVERY_PER_TARGET = "2";
  // The receiver listens on 127.0.0.1, which the outbound policy refuses unless allowed.
  process.env.RECEIPT_OUTBOUND_ALLOW = "127.0.0.0/8";
  receiver = await startWebhookReceiver();
  lib = {
    sql: await import("@/lib/server/db/sql"),
    delivery: await import("@/lib/server/routing/delivery-worker"),
    deliveries: await import("@/lib/server/db/routing-deliveries"),
    pauses: await import("@/lib/server/db/routing-rate-buckets"),
  };
});
afterAll(async () => {
  await receiver?.stop();
  const { getPool } = await import("@/lib/server/db/client");
  await getPool().end();
  await db?.drop();
});

const query = <Row>(text: string, values: unknown[] = []) => lib.sql.poolSql().query<Row>(text, values);

let made = 0;
/** Due deliveries to `channel`'s target 0 (a webhook, or `targetType`), in the order given; returns their ids. */
async function insert(channel: string, groupKeys: string[], targetType = "webhook", createdAt = new Date()) {
  const rows = groupKeys.map((groupKey) => ({
    groupKey,
    channel,
    targetIndex: 0,
    targetType,
    url: receiver.url(`/${channel}/${groupKey}/${made++}`),
    body: JSON.stringify({ groupKey }),
    headers: { "content-type": "application/json" },
    signingSecret: null,
    kind: "notification" as const,
    alertFingerprints: [],
    maxAttempts: 3,
  }));
  return lib.sql.inTransaction((sql) => lib.deliveries.insertDeliveries(sql, rows, createdAt));
}

const handOver = (channel: string, ids: bigint[], targetType = "webhook") =>
  lib.delivery.takeNewDeliveries(ids.map((id) => ({ id, channel, targetIndex: 0, targetType })));

async function statuses(ids: bigint[]) {
  const rows = await query<{ id: bigint; status: string; attempts: number }>(
    "select id, status, attempts from deliveries where id = any($1::bigint[]) order by id",
    [ids.map(String)],
  );
  return rows.map((row) => `${row.status}/${row.attempts}`);
}

const sentTo = (channel: string) =>
  receiver.received().filter((r) => r.path.startsWith(`/${channel}/`)).length;

describe("deliveries handed to this instance's engine", () => {
  it("claims exactly the ids handed over: another due delivery waits for a due claim", async () => {
    // A due claim first, with nothing due: the engine then knows nothing else waits (a fresh engine has not looked,
    // and claims after its first send).
    expect(await lib.delivery.sendDueDeliveries()).toBe(0);
    const [handed, other] = await insert("only-ids", ["g1", "g2"]);
    handOver("only-ids", [handed as bigint]);
    await receiver.waitFor(() => sentTo("only-ids") === 1, 10_000, "the handed-over delivery");
    await lib.delivery.deliveriesSettled();
    expect(await statuses([handed as bigint, other as bigint])).toEqual(["delivered/1", "pending/0"]);
    // The due claim (the tick, another wake-up) takes the rest.
    await lib.delivery.sendDueDeliveries();
    await lib.delivery.deliveriesSettled();
    expect(await statuses([other as bigint])).toEqual(["delivered/1"]);
  });

  it("keeps a group's order: a delivery behind an older pending one of its group is left for the due claim", async () => {
    const earlier = new Date(Date.now() - 60_000);
    const [older] = await insert("ordered", ["g"], "webhook", earlier);
    // The older one is leased elsewhere (another instance is sending it): still pending, not due.
    await query("update deliveries set next_attempt_at = now() + interval '1 hour' where id = $1", [
      String(older),
    ]);
    const [newer] = await insert("ordered", ["g"]);
    handOver("ordered", [newer as bigint]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await lib.delivery.deliveriesSettled();
    expect(sentTo("ordered")).toBe(0);
    expect(await statuses([older as bigint, newer as bigint])).toEqual(["pending/0", "pending/0"]);
  });

  it("leaves a paused target's delivery alone until the pause ends", async () => {
    await lib.pauses.pauseTargetEverywhere("paused", 0, new Date(Date.now() + 60_000));
    const [id] = await insert("paused", ["g"]);
    handOver("paused", [id as bigint]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await lib.delivery.deliveriesSettled();
    expect(sentTo("paused")).toBe(0);
    expect(await statuses([id as bigint])).toEqual(["pending/0"]);
  });

  it("takes a target's share by id and the rest through the due claim: all sent once each", async () => {
    const ids = await insert(
      "many",
      Array.from({ length: 12 }, (_, i) => `g${i}`),
    );
    handOver("many", ids);
    await receiver.waitFor(() => sentTo("many") === 12, 15_000, "all twelve");
    await lib.delivery.deliveriesSettled();
    expect(await statuses(ids)).toEqual(ids.map(() => "delivered/1"));
    expect(sentTo("many")).toBe(12);
  });

  it("a claim by id that PostgreSQL refuses: the due claim right after sends the good one and sets the bad one aside", async () => {
    const [good, bad] = await insert("refused", ["g1", "g2"]);
    // An attempt counter at the top of its type: `attempts + 1` overflows, and the claim by id fails whole.
    await query("update deliveries set attempts = 2147483647 where id = $1", [String(bad)]);
    handOver("refused", [good as bigint, bad as bigint]);
    await receiver.waitFor(() => sentTo("refused") === 1, 10_000, "the good delivery");
    await lib.delivery.deliveriesSettled();
    const rows = await query<{ id: bigint; status: string; last_error: string | null }>(
      "select id, status, last_error from deliveries where id = any($1::bigint[]) order by id",
      [[good, bad].map(String)],
    );
    expect(rows.map((row) => row.status)).toEqual(["delivered", "dead"]);
    expect(rows[1]?.last_error).toMatch(/^set aside: /);
  });

  it("a rate-limited kind (Slack) is not claimed by id: the due claim counts its tokens", async () => {
    const [id] = await insert("slack", ["g"], "slack");
    handOver("slack", [id as bigint], "slack");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Not by id; the due claim that the hand-over asked for then takes it (and the outbound policy refuses the
    // non-Slack URL, so it goes dead: what matters here is that it was claimed once, by the due claim).
    await lib.delivery.deliveriesSettled();
    const [row] = await query<{ attempts: number }>("select attempts from deliveries where id = $1", [
      String(id),
    ]);
    expect(row?.attempts).toBe(1);
  });
});
