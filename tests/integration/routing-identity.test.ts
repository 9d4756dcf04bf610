import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { TRouteConfig, TRoutingConfig } from "@/lib/routing/config";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import {
  FAST_ROUTING_ENV,
  HOOK_SECRET,
  routingApi,
  seedRecord,
  webhookBodies,
} from "@/tests/support/routing-helpers";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Stable route identity over real HTTP and PostgreSQL: with alerts firing and announced, inserting, removing,
// reordering or renaming other routes re-sends nothing; changing a route's receiver resolves its alerts once on the
// old receiver and fires them once on the new one; groups stored under the old path-based keys are re-keyed by the
// start-up step and the next flush sends nothing. And a PagerDuty test notification resolves itself.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp | undefined;
let receiver: WebhookReceiver;
let ingest: ReturnType<typeof apiClient>;
let admin: ReturnType<typeof routingApi>;
let key: string;

const TOOL_ALERTS = 12;
const TEAM_ALERTS = 4;
/** Longer than a flush needs after a save (groups are due at once, groupInterval 1 s, 50 ms ticks). */
const SETTLE_MS = 3000;
const PD_KEY = "0123456789abcdef0123456789abcdef";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const tools: TRouteConfig = { name: "tools", matchers: ['state="tool_failed"'], receiver: "tools" };
const nothing: TRouteConfig = { name: "nothing", matchers: ['label.team="nobody"'], receiver: "other" };
const elsewhere: TRouteConfig = { name: "elsewhere", matchers: ['label.team="elsewhere"'], receiver: "team" };

function config(routes: TRouteConfig[]): TRoutingConfig {
  const hook = (name: string) => ({
    type: "webhook" as const,
    url: receiver.url(`/hook/${name}`),
    secret: HOOK_SECRET,
  });
  return {
    version: 1,
    channels: ["team", "tools", "other"].map((name) => ({ name, ownerRole: name, targets: [hook(name)] })),
    route: {
      receiver: "team",
      groupBy: ["server"],
      groupWait: "0s",
      groupInterval: "1s",
      repeatInterval: "1h",
      routes: [
        ...routes,
        {
          name: "pager",
          matchers: ['label.team="pager"'],
          receiver: "pd",
        },
      ],
    },
    inhibitRules: [],
    silences: [],
  };
}
const withPagerDuty = (c: TRoutingConfig): TRoutingConfig => ({
  ...c,
  channels: [
    ...c.channels,
    {
      name: "pd",
      ownerRole: "on-call",
      targets: [{ type: "pagerduty", routingKey: PD_KEY, url: receiver.url("/pd") }],
    },
  ],
});
const save = async (routes: TRouteConfig[]) => {
  await admin.saveConfig(withPagerDuty(config(routes)));
  await sleep(SETTLE_MS);
};

/** [status, chainId] of every alert a channel was sent, in arrival order. */
const sentTo = (channel: string) =>
  webhookBodies(receiver.received(`/hook/${channel}`)).flatMap((b) =>
    b.alerts.map((a) => [a.status, a.chainId]),
  );
const total = () => ["team", "tools", "other"].reduce((n, c) => n + sentTo(c).length, 0);

const post = async (records: HealthRecord[]) => {
  const response = await ingest.post(records);
  expect(response.status, await response.clone().text()).toBe(200);
};

async function start() {
  app = await startApp(db.url, FAST_ROUTING_ENV);
  ingest = apiClient(app.baseUrl, key);
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
}

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  receiver = await startWebhookReceiver();
  key = await createTestKey(db.url, "agent");
  await start();
  await admin.saveConfig(withPagerDuty(config([tools])));
  await post([
    ...Array.from({ length: TOOL_ALERTS }, (_, i) => seedRecord("tool_failed", `tf-${i}`)),
    ...Array.from({ length: TEAM_ALERTS }, (_, i) => seedRecord("protocol_error", `pe-${i}`)),
  ]);
  await receiver.waitFor(
    () => sentTo("tools").length === TOOL_ALERTS && sentTo("team").length === TEAM_ALERTS,
  );
  await sleep(SETTLE_MS);
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  const { getPool } = await import("@/lib/server/db/client");
  await getPool().end();
  await db?.drop();
});

describe("a tree edit re-sends nothing that did not change", () => {
  it("announced once each before any edit", () => {
    expect([sentTo("tools").length, sentTo("team").length, sentTo("other").length]).toEqual([
      TOOL_ALERTS,
      TEAM_ALERTS,
      0,
    ]);
  });

  it("inserting a route that matches nothing, then removing it: 0 notifications", async () => {
    const before = total();
    await save([nothing, tools]);
    expect(total()).toBe(before);
    await save([tools]);
    expect(total()).toBe(before);
  });

  it("reordering and renaming routes: 0 notifications", async () => {
    const before = total();
    await save([elsewhere, { ...tools, name: "tool failures" }, nothing]);
    await save([nothing, { ...tools, name: "tool failures" }, elsewhere]);
    expect(total()).toBe(before);
  });

  it("changing one route's receiver: one resolved on the old receiver, one firing on the new, per alert", async () => {
    const tooled = sentTo("tools").length;
    const team = sentTo("team").length;
    await admin.saveConfig(withPagerDuty(config([{ ...tools, receiver: "other" }])));
    await receiver.waitFor(
      () => sentTo("tools").length === tooled + TOOL_ALERTS && sentTo("other").length === TOOL_ALERTS,
    );
    await sleep(SETTLE_MS);
    const resolved = sentTo("tools").slice(tooled);
    expect(resolved).toHaveLength(TOOL_ALERTS);
    expect(resolved.every(([status]) => status === "resolved")).toBe(true);
    expect(new Set(resolved.map(([, chain]) => chain)).size).toBe(TOOL_ALERTS);
    expect(sentTo("other")).toHaveLength(TOOL_ALERTS);
    expect(sentTo("other").every(([status]) => status === "firing")).toBe(true);
    expect(new Set(sentTo("other").map(([, chain]) => chain))).toEqual(
      new Set(resolved.map(([, chain]) => chain)),
    );
    expect(sentTo("team")).toHaveLength(team);
  });
});

describe("groups stored under the old path-based keys", () => {
  it("are re-keyed by the start-up step, idempotently, and the next flush sends nothing", async () => {
    const { poolSql } = await import("@/lib/server/db/sql");
    const { rekeyLegacyGroups } = await import("@/lib/server/routing/rekey-groups");
    const sql = poolSql();
    const keys = async (table: string) =>
      (await sql.query<{ k: string }>(`select distinct group_key as k from ${table} order by 1`)).map(
        (r) => r.k,
      );
    await app?.stop();
    app = undefined;
    const before = {
      groups: await keys("notification_groups"),
      members: await keys("notification_group_members"),
      deliveries: await keys("deliveries where kind = 'notification'"),
    };
    expect(before.groups.length).toBe(TOOL_ALERTS + TEAM_ALERTS);
    // Back to what the previous release wrote: the route's JSON path, then the same groupBy values.
    const legacy = `g.route_path || substr(g.group_key, strpos(g.group_key, ':{'))`;
    for (const table of ["notification_group_members", "deliveries"])
      await sql.execute(
        `update ${table} t set group_key = ${legacy} from notification_groups g where t.group_key = g.group_key`,
      );
    await sql.execute(`update notification_groups g set group_key = ${legacy}`);
    const old = await keys("notification_groups");
    expect(old.every((k) => /^\$\.route(\.routes\[\d\])?:\{server="/.test(k))).toBe(true);

    expect(await rekeyLegacyGroups()).toBe(TOOL_ALERTS + TEAM_ALERTS);
    expect(await rekeyLegacyGroups()).toBe(0);
    expect({
      groups: await keys("notification_groups"),
      members: await keys("notification_group_members"),
      deliveries: await keys("deliveries where kind = 'notification'"),
    }).toEqual(before);

    await start();
    const sent = total();
    // Every group due at once, every firing alert routed again: what a first flush after an upgrade does.
    await save([{ ...tools, receiver: "other" }]);
    expect(total()).toBe(sent);
  });
});

describe("test notification to PagerDuty", () => {
  it("triggers, then resolves the same incident", async () => {
    const response = await admin.post("/test-notification", { channel: "pd" });
    expect(response.status).toBe(202);
    expect(response.json.deliveries).toHaveLength(2);
    await receiver.waitFor((all) => all.filter((r) => r.path === "/pd").length >= 2);
    const events = receiver.received("/pd").map((r) => r.json as { event_action: string; dedup_key: string });
    expect(events.map((e) => e.event_action)).toEqual(["trigger", "resolve"]);
    expect(events[1]?.dedup_key).toBe(events[0]?.dedup_key);
  });
});
