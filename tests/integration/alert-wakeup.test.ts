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

// Wake-ups across app instances on one PostgreSQL: the safety ticks are set far longer than anything asserted here,
// so only a wake-up (in-process, or another instance's LISTEN hearing the NOTIFY of the commit) explains a fast
// delivery. Each record is its own chain and, grouped by chain with groupWait 0, its own notification.
const SAFETY_TICK_MS = 30_000;
const FAST_MS = 1_000;
const GROUP_WAIT_MS = 1_500;
const CADENCE_MS = 2_000;
const SLOW_ENV = {
  ...FAST_ROUTING_ENV,
  RECEIPT_ALERT_TICK_MS: String(SAFETY_TICK_MS),
  RECEIPT_DELIVERY_TICK_MS: String(SAFETY_TICK_MS),
};

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: WebhookReceiver;
let ingestKey: string;
let readKey: string;
const apps: RunningApp[] = [];

function config(): TRoutingConfig {
  return {
    version: 1,
    channels: [
      {
        name: "team",
        ownerRole: "the team",
        targets: [{ type: "webhook", url: receiver.url("/hook/team"), secret: HOOK_SECRET }],
      },
    ],
    route: {
      receiver: "team",
      groupBy: ["chain"],
      groupWait: "0s",
      groupInterval: "1s",
      repeatInterval: "1h",
      routes: [
        {
          name: "waiting",
          matchers: ['label.suite="wait"'],
          groupWait: `${GROUP_WAIT_MS}ms`,
          groupInterval: "2s",
        },
        {
          name: "cadence",
          matchers: ['label.suite="cadence"'],
          groupBy: ["state"],
          groupWait: "0s",
          groupInterval: `${CADENCE_MS}ms`,
        },
      ],
    },
    inhibitRules: [],
    silences: [],
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  ingestKey = await createTestKey(db.url, "agent", ["ingest"]);
  readKey = await createTestKey(db.url, "scraper", ["read"]);
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await receiver?.stop();
  await db?.drop();
});

async function start(env: Record<string, string> = {}): Promise<RunningApp> {
  const app = await startApp(db.url, { ...SLOW_ENV, ...env });
  apps.push(app);
  return app;
}

/** The webhook requests that carried the chain's alert. */
const notificationsFor = (chainId: string) =>
  receiver
    .received()
    .filter((request) => alertsReceived([request]).some((hit) => hit.alert.chainId === chainId));

/**
 * POSTs one failing record to `app` and returns how long after its answer its notification arrived: the batch is
 * committed by then, and ingestion's own time (seconds on a loaded machine) is not what this measures. `sinceRequest`:
 * from the request, for a lower bound.
 */
async function timeToWebhook(app: RunningApp, id: string, labels?: Record<string, string>) {
  const record = seedRecord("tool_failed", id, (r) => {
    if (labels) r.labels = labels;
  });
  const requested = Date.now();
  const response = await apiClient(app.baseUrl, ingestKey).post([record]);
  expect(response.status, await response.clone().text()).toBe(200);
  const answered = Date.now();
  await receiver.waitFor(() => notificationsFor(`chain:${id}`).length > 0, SAFETY_TICK_MS / 2, id);
  const arrived = notificationsFor(`chain:${id}`)[0]?.at ?? Number.POSITIVE_INFINITY;
  return { sinceAnswer: arrived - answered, sinceRequest: arrived - requested };
}

async function jobRuns(app: RunningApp, job: string): Promise<number> {
  const response = await apiClient(app.baseUrl, readKey).get("/metrics");
  const text = await response.text();
  const line = text.split("\n").find((l) => l.startsWith(`receipt_job_runs_total{job="${job}"}`));
  return Number(line?.split(" ")[1] ?? 0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("wake-ups across two instances", () => {
  let a: RunningApp;
  let b: RunningApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([start(), start()]);
    await routingApi(a.baseUrl, await adminCookie(a.baseUrl)).saveConfig(config());
    // Warm up both (first compile of the routing, first statements): not measured.
    await timeToWebhook(a, "warm-a");
    await timeToWebhook(b, "warm-b");
  });

  it("a record POSTed to one instance reaches the webhook well inside the safety tick", async () => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++)
      times.push((await timeToWebhook(i % 2 === 0 ? a : b, `fast-${i}`)).sinceAnswer);
    for (const ms of times) expect(ms).toBeLessThan(FAST_MS);
  });

  it("a group is flushed when its groupWait ends, not at the next safety tick", async () => {
    const { sinceAnswer, sinceRequest } = await timeToWebhook(a, "waiting", { suite: "wait" });
    expect(sinceRequest).toBeGreaterThanOrEqual(GROUP_WAIT_MS);
    expect(sinceAnswer).toBeLessThan(GROUP_WAIT_MS + FAST_MS);
  });

  it("groupInterval is a cadence: a change after a quiet tick waits for the next tick, not for groupInterval since the last send", async () => {
    await timeToWebhook(a, "cadence-1", { suite: "cadence" });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client
      .query<{ first: Date }>(
        `select g.first_seen_at as first from notification_groups g
          join notification_group_members m on m.group_key = g.group_key
          join alerts a on a.fingerprint = m.fingerprint where a.chain_id = 'chain:cadence-1'`,
      )
      .finally(() => client.end());
    const anchor = rows[0]?.first.getTime() ?? Number.NaN;
    // After the quiet tick at anchor + 1·interval: "groupInterval since the last send" would send it at once.
    await sleep(anchor + CADENCE_MS + 300 - Date.now());
    await timeToWebhook(b, "cadence-2", { suite: "cadence" });
    const arrived = notificationsFor("chain:cadence-2")[0]?.at ?? Number.NaN;
    expect(arrived).toBeGreaterThanOrEqual(anchor + 2 * CADENCE_MS);
    expect(arrived).toBeLessThan(anchor + 2 * CADENCE_MS + FAST_MS);
  });

  it("no notification is sent twice across the instances", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
    await Promise.all(
      ids.map((id, i) =>
        apiClient((i % 2 === 0 ? a : b).baseUrl, ingestKey).post([seedRecord("tool_failed", id)]),
      ),
    );
    await receiver.waitFor(() => ids.every((id) => notificationsFor(`chain:${id}`).length > 0), FAST_MS * 10);
    await sleep(1_500); // a duplicate would come from the other instance's run right after
    for (const id of ids) expect(notificationsFor(`chain:${id}`), id).toHaveLength(1);
  });

  it("a NOTIFY in a rolled-back transaction wakes nobody; a committed one wakes routing", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const before = await jobRuns(a, "alert-routing");
      await client.query("begin");
      await client.query("select pg_notify('receipt_alert_outbox', '')");
      await client.query("rollback");
      await sleep(500);
      expect(await jobRuns(a, "alert-routing")).toBe(before);
      await client.query("select pg_notify('receipt_alert_outbox', '')");
      const deadline = Date.now() + FAST_MS * 3;
      while ((await jobRuns(a, "alert-routing")) === before && Date.now() < deadline) await sleep(50);
      expect(await jobRuns(a, "alert-routing")).toBeGreaterThan(before);
    } finally {
      await client.end();
    }
  });

  it("with the receiving instance's workers off, the other instance's LISTEN delivers it", async () => {
    const front = await start({ RECEIPT_DISABLE_WORKERS: "1" });
    await timeToWebhook(front, "warm-front");
    const times: number[] = [];
    for (let i = 0; i < 3; i++) times.push((await timeToWebhook(front, `listen-${i}`)).sinceAnswer);
    for (const ms of times) expect(ms).toBeLessThan(FAST_MS);
  });
});
