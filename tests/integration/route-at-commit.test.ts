import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import {
  alertsReceived,
  FAST_ROUTING_ENV,
  routingApi,
  seedRecord,
  teamWebhookRouting,
  webhookBodies,
} from "@/tests/support/routing-helpers";
import { runningWriteRecord } from "@/tests/support/record-builders";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Routing at commit (lib/server/routing/route-at-commit.ts) on the production build: the ingesting transaction routes
// its alerts and flushes the groups due at once (a group a chain, groupWait 0s), with the default inhibition rule. The
// safety ticks are far longer than any wait here, so a notification that arrives came from the commit itself (or a
// wake-up it caused).
const SAFETY_TICK_MS = 60_000;
const GROUP_WAIT_MS = 1_500;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let ingest: ReturnType<typeof apiClient>;
let readKey: string;
let admin: ReturnType<typeof routingApi>;
let client: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  app = await startApp(db.url, {
    ...FAST_ROUTING_ENV,
    RECEIPT_ALERT_TICK_MS: String(SAFETY_TICK_MS),
    RECEIPT_DELIVERY_TICK_MS: String(SAFETY_TICK_MS),
    RECEIPT_DEADLINE_TICK_MS: "100",
  });
  ingest = apiClient(app.baseUrl, await createTestKey(db.url, "agent", ["ingest"]));
  readKey = await createTestKey(db.url, "scraper", ["read"]);
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
  const routing = teamWebhookRouting(receiver.url("/hook/team"), "1m");
  routing.channels.push({ name: "untargeted", ownerRole: "nobody yet", targets: [] });
  routing.route.routes = [
    { name: "waiting", matchers: ['label.suite="wait"'], groupWait: `${GROUP_WAIT_MS}ms` },
    { name: "untargeted", matchers: ['label.suite="untargeted"'], receiver: "untargeted", groupWait: "0s" },
    { name: "shared", matchers: ['label.suite="shared"'], groupBy: ["server"], groupWait: "0s" },
  ];
  await admin.saveConfig({ ...routing, inhibitRules: DEFAULT_ROUTING_CONFIG.inhibitRules });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const onServer = (server: string) => (record: HealthRecord) => {
  if (record.session.server) record.session.server.name = server;
};
const notified = (chainId: string) =>
  alertsReceived(receiver.received("/hook/team")).filter((hit) => hit.alert.chainId === chainId);

async function post(records: HealthRecord[]) {
  const response = await ingest.post(records);
  expect(response.status, await response.clone().text()).toBe(200);
  return Date.now();
}

async function routingRuns(): Promise<number> {
  const text = await (await apiClient(app.baseUrl, readKey).get("/metrics")).text();
  return Number(/^receipt_job_runs_total\{job="alert-routing"\} (\S+)$/m.exec(text)?.[1] ?? 0);
}

const outboxEvents = async () =>
  (await client.query<{ n: number }>("select count(*)::int as n from alert_outbox")).rows[0]?.n;

describe("routing at commit", () => {
  it("an alert is delivered right after its commit, with no outbox event and no routing run", async () => {
    await post([seedRecord("tool_failed", "rac-warm", onServer("rac-warm"))]);
    await receiver.waitFor(() => notified("chain:rac-warm").length > 0, 10_000, "the warm-up");
    const runs = await routingRuns();
    const answered = await post([seedRecord("tool_failed", "rac-fast", onServer("rac-fast"))]);
    expect(await outboxEvents()).toBe(0);
    await receiver.waitFor(() => notified("chain:rac-fast").length > 0, 10_000, "the alert");
    const arrived = receiver.received("/hook/team").find((r) => r.body.includes('"chain:rac-fast"'))?.at ?? 0;
    expect(arrived - answered).toBeLessThan(2_000);
    await sleep(300);
    expect(await routingRuns()).toBe(runs);
  });

  it("the deadline job's own transaction pages: a write past its deadline is effect_unknown, sent with no routing run", async () => {
    const runs = await routingRuns();
    await post([
      runningWriteRecord(800, (_call, record) => {
        record.recordId = "rec:rac-deadline";
        record.chainId = "chain:rac-deadline";
        onServer("rac-deadline")(record);
      }),
    ]);
    await receiver.waitFor(
      () => notified("chain:rac-deadline").length > 0,
      10_000,
      "the effect_unknown page",
    );
    expect(notified("chain:rac-deadline")[0]?.alert).toMatchObject({
      state: "effect_unknown",
      status: "firing",
    });
    await sleep(300);
    expect(await routingRuns()).toBe(runs);
    expect(await outboxEvents()).toBe(0);
  });

  it("an alert whose route waits (groupWait) takes the outbox: one routing run, and its webhook after the wait", async () => {
    const runs = await routingRuns();
    const requested = Date.now();
    await post([
      seedRecord("tool_failed", "rac-waiting", (record) => {
        onServer("rac-waiting")(record);
        record.labels = { suite: "wait" };
      }),
    ]);
    await receiver.waitFor(() => notified("chain:rac-waiting").length > 0, 10_000, "the waiting alert");
    const arrived =
      receiver.received("/hook/team").find((r) => r.body.includes('"chain:rac-waiting"'))?.at ?? 0;
    expect(arrived - requested).toBeGreaterThanOrEqual(GROUP_WAIT_MS);
    // The outbox's run, then the group timer's flush.
    expect(await routingRuns()).toBeGreaterThanOrEqual(runs + 2);
  });

  it("an alert whose channel has no target takes the outbox: nothing would be sent at commit", async () => {
    const runs = await routingRuns();
    await post([
      seedRecord("tool_failed", "rac-untargeted", (record) => {
        onServer("rac-untargeted")(record);
        record.labels = { suite: "untargeted" };
      }),
    ]);
    // The routing run's commit adds it to its group (a run counts when it starts, so the membership is what is
    // waited for).
    const grouped = () =>
      client.query(
        `select 1 from notification_group_members m join alerts a on a.fingerprint = m.fingerprint
          where a.chain_id = 'chain:rac-untargeted'`,
      );
    const deadline = Date.now() + 10_000;
    while ((await grouped()).rowCount === 0 && Date.now() < deadline) await sleep(50);
    expect((await grouped()).rowCount).toBe(1);
    expect(await routingRuns()).toBeGreaterThan(runs);
    expect(await outboxEvents()).toBe(0);
  });

  it("concurrent batches joining one group at once: one notification now, the rest at the group's next tick", async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `rac-shared-${i}`);
    const statuses = await Promise.all(
      ids.map(
        async (id) =>
          (
            await ingest.post([
              seedRecord("tool_failed", id, (record) => {
                onServer("rac-shared")(record);
                record.labels = { suite: "shared" };
              }),
            ])
          ).status,
      ),
    );
    expect(statuses).toEqual(ids.map(() => 200));
    const sharedBodies = () =>
      webhookBodies(receiver.received("/hook/team")).filter((body) =>
        body.alerts.some((alert) => alert.server === "rac-shared"),
      );
    await receiver.waitFor(() => sharedBodies().length > 0, 10_000, "the group's first notification");
    await sleep(1_500);
    // groupInterval is 1m: whatever joined after the first flush waits for the next tick, as in Alertmanager.
    expect(sharedBodies()).toHaveLength(1);
  });

  it("inhibition holds at commit: a firing needs_auth (stored before, or in the same batch) keeps its server's tool_failed quiet, never its effect_unknown", async () => {
    await post([seedRecord("needs_auth", "rac-auth-1", onServer("rac-locked-1"))]);
    await receiver.waitFor(() => notified("chain:rac-auth-1").length > 0, 10_000, "the needs_auth alert");
    await post([
      seedRecord("tool_failed", "rac-tool-1", onServer("rac-locked-1")),
      seedRecord("effect_unknown", "rac-effect-1", onServer("rac-locked-1")),
      // The source raised in the very transaction that routes its target.
      seedRecord("needs_auth", "rac-auth-2", onServer("rac-locked-2")),
      seedRecord("tool_failed", "rac-tool-2", onServer("rac-locked-2")),
      // Same rule, another server: not inhibited.
      seedRecord("tool_failed", "rac-tool-3", onServer("rac-free")),
    ]);
    await receiver.waitFor(
      () =>
        ["chain:rac-effect-1", "chain:rac-auth-2", "chain:rac-tool-3"].every((id) => notified(id).length > 0),
      10_000,
      "the alerts nothing inhibits",
    );
    await sleep(1_000);
    expect(notified("chain:rac-tool-1")).toEqual([]);
    expect(notified("chain:rac-tool-2")).toEqual([]);
    // Inhibited, not lost: their groups were flushed at commit and hold them.
    const held = await client.query<{ chain_id: string }>(
      `select a.chain_id from notification_group_members m join alerts a on a.fingerprint = m.fingerprint
        where a.chain_id = any($1::text[]) order by a.chain_id`,
      [["chain:rac-tool-1", "chain:rac-tool-2"]],
    );
    expect(held.rows.map((row) => row.chain_id)).toEqual(["chain:rac-tool-1", "chain:rac-tool-2"]);
  });

  it("a silence holds at commit, except for effect_unknown", async () => {
    const silence = await admin.post("/silences", {
      matchers: ['server="rac-silenced"'],
      duration: "1h",
      comment: "maintenance",
    });
    expect(silence.status).toBe(201);
    await post([
      seedRecord("tool_failed", "rac-silenced-tool", onServer("rac-silenced")),
      seedRecord("effect_unknown", "rac-silenced-effect", onServer("rac-silenced")),
    ]);
    await receiver.waitFor(() => notified("chain:rac-silenced-effect").length > 0, 10_000, "effect_unknown");
    await sleep(1_000);
    expect(notified("chain:rac-silenced-tool")).toEqual([]);
  });

  it("more alerting batches at once than the pool has connections: every one is answered and delivered", async () => {
    const ids = Array.from({ length: 24 }, (_, i) => `rac-burst-${i}`);
    const statuses = await Promise.all(
      ids.map(async (id) => (await ingest.post([seedRecord("tool_failed", id, onServer(id))])).status),
    );
    expect(statuses).toEqual(ids.map(() => 200));
    await receiver.waitFor(
      () => ids.every((id) => notified(`chain:${id}`).length > 0),
      15_000,
      "the 24 notifications",
    );
    for (const id of ids) expect(notified(`chain:${id}`), id).toHaveLength(1);
  });

  it("when routing at commit fails, the batch is still stored and its alert goes through the outbox", async () => {
    // Fails the first group write for this server only: the routing at commit's. A sequence is not rolled back, so
    // the routing job's later write of the same group goes through.
    await client.query("create sequence rac_poison");
    await client.query(`create function rac_poison() returns trigger language plpgsql as $$
      begin
        if new.labels->>'chain' = 'chain:rac-poisoned' and nextval('rac_poison') = 1 then
          raise exception 'rac: refused on purpose';
        end if;
        return new;
      end $$`);
    await client.query(
      "create trigger rac_poison before insert or update on notification_groups for each row execute function rac_poison()",
    );
    try {
      const runs = await routingRuns();
      await post([seedRecord("tool_failed", "rac-poisoned", onServer("rac-poisoned"))]);
      const stored = await client.query("select 1 from chains where chain_id = 'chain:rac-poisoned'");
      expect(stored.rowCount).toBe(1);
      await receiver.waitFor(
        () => notified("chain:rac-poisoned").length > 0,
        10_000,
        "the outbox's delivery",
      );
      expect(await routingRuns()).toBeGreaterThan(runs);
      expect(await outboxEvents()).toBe(0);
      // Refused once (at commit), then written by the routing job.
      const poisoned = await client.query<{ n: string }>("select last_value::text as n from rac_poison");
      expect(Number(poisoned.rows[0]?.n)).toBeGreaterThanOrEqual(2);
    } finally {
      await client.query("drop trigger rac_poison on notification_groups");
      await client.query("drop function rac_poison()");
      await client.query("drop sequence rac_poison");
    }
  });

  // Last: it replaces the routing config.
  it("a config save in progress is waited for: the batch routes under the version that save commits", async () => {
    const stored = await client.query<{ config: { channels: { targets: { url: string }[] }[] } }>(
      "select config from routing_config_versions order by id desc limit 1",
    );
    const moved = structuredClone(stored.rows[0]?.config);
    const target = moved?.channels[0]?.targets[0];
    if (!moved || !target) throw new Error("no stored routing config");
    target.url = receiver.url("/hook/moved");
    // A save holds the config lock from its start to its commit (lockConfigVersions).
    const saver = new pg.Client({ connectionString: db.url });
    await saver.connect();
    try {
      await saver.query("begin");
      await saver.query("select pg_advisory_xact_lock(hashtextextended('receipt:routing-config', 0))");
      const posting = ingest.post([seedRecord("tool_failed", "rac-moved", onServer("rac-moved"))]);
      await sleep(500); // the batch is at its lock by now
      await saver.query("insert into routing_config_versions (config, created_by) values ($1, 'test')", [
        moved,
      ]);
      await saver.query("commit");
      expect((await posting).status).toBe(200);
    } finally {
      await saver.end();
    }
    const movedHits = () =>
      alertsReceived(receiver.received("/hook/moved")).filter(
        (hit) => hit.alert.chainId === "chain:rac-moved",
      );
    await receiver.waitFor(() => movedHits().length > 0, 10_000, "the notification at the new target");
    expect(notified("chain:rac-moved")).toEqual([]);
  });
});
