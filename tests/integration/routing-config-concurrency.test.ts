import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { FAST_ROUTING_ENV, hookedDefaults, routingApi, seedRecord } from "@/tests/support/routing-helpers";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Issue 39 §5: 30 config applies during ingestion answered 2 × 500 (40P01, deadlock) and failed 42 alert jobs. A
// save reroutes every firing alert and touches every notification group, rows ingestion and the alert jobs lock
// too. Now the groups are locked in key order and a deadlock victim is run again: every apply is 200 or a 409 to
// retry, every batch is stored, and the app logs no deadlock.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let session: ReturnType<typeof routingApi>;
let ingestKey: string;

const CHAINS = 300;
const ROUNDS = 9;
const BATCH = 20;
const APPLIES = 30;

beforeAll(async () => {
  db = await createTestDatabase();
  ingestKey = await createTestKey(db.url, "deadlock-ingest", ["ingest"]);
  receiver = await startWebhookReceiver();
  app = await startApp(db.url, FAST_ROUTING_ENV);
  session = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
  await session.saveConfig(hookedDefaults(receiver));
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

/** Round `round` of every chain, in batches: the states alternate, so alerts fire, change and resolve. */
async function ingestRounds(): Promise<number[]> {
  const client = apiClient(app.baseUrl, ingestKey);
  const statuses: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const state = ["false_success", "effect_unknown", "healthy"][round % 3] ?? "healthy";
    const records = Array.from({ length: CHAINS }, (_, i) => {
      const record = seedRecord(state, `dl-${i}`);
      record.recordId = `rec:dl-${i}:${round}`;
      return record;
    });
    const batches = Array.from({ length: CHAINS / BATCH }, (_, b) =>
      records.slice(b * BATCH, (b + 1) * BATCH),
    );
    const answers = await Promise.all(batches.map((batch) => client.post(batch)));
    statuses.push(...answers.map((answer) => answer.status));
  }
  return statuses;
}

/** Applies (three at a time, at least APPLIES, until ingestion ends) alternating the route's group wait, so each save is a new version that reroutes everything. */
async function applyConfigs(
  ingesting: () => boolean,
): Promise<{ status: number; code: string | undefined }[]> {
  const answers: { status: number; code: string | undefined }[] = [];
  for (let i = 0; i < APPLIES || ingesting(); i += 3) {
    const round = await Promise.all(
      [0, 1, 2].map((j) =>
        session.put(
          "/config",
          hookedDefaults(receiver, (config) => {
            config.route.groupWait = `${200 + i + j}ms`;
          }),
        ),
      ),
    );
    answers.push(...round.map((answer) => ({ status: answer.status, code: answer.json?.error?.code })));
  }
  return answers;
}

describe("routing config applies during ingestion", () => {
  it("every apply is 200 or 409 config_busy, every batch is stored, and nothing deadlocks unanswered", async () => {
    let ingesting = true;
    const [ingested, applied] = await Promise.all([
      ingestRounds().finally(() => {
        ingesting = false;
      }),
      applyConfigs(() => ingesting),
    ]);
    expect(ingested).toEqual(Array(ROUNDS * (CHAINS / BATCH)).fill(200));
    expect(applied.length).toBeGreaterThanOrEqual(APPLIES);
    for (const answer of applied) {
      if (answer.status === 200) continue;
      expect(answer).toEqual({ status: 409, code: "config_busy" });
    }
    expect(applied.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
    expect(app.output()).not.toMatch(/40P01|deadlock detected/);
  }, 180_000);
});

describe("a routing config save waiting behind others", () => {
  it("waits for the config lock longer than Prisma's default five seconds and saves (it answered 500)", async () => {
    // Three saves at once queue on the config lock, each rerouting every firing alert: on a loaded machine the last
    // one waited past Prisma's default transaction timeout. Here another session holds the lock for 6 s.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select pg_advisory_xact_lock(hashtextextended('receipt:routing-config', 0))");
      const started = Date.now();
      const saving = session.put(
        "/config",
        hookedDefaults(receiver, (config) => {
          config.route.groupWait = "777ms";
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await holder.query("commit");
      const answer = await saving;
      expect({ status: answer.status, code: answer.json?.error?.code }).toEqual({
        status: 200,
        code: undefined,
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(6_000);
    } finally {
      await holder.end();
    }
  }, 60_000);
});
