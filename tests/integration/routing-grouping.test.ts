import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
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

// Alertmanager semantics over real HTTP: grouping within groupWait, repeatInterval, resolved notifications,
// silences, inhibition, and stale_catalog's bounded re-discovery. Each scenario uses its own server names, so
// its notification groups are its own.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let ingest: ReturnType<typeof apiClient>;
let admin: ReturnType<typeof routingApi>;

const STALE_DELAY_MS = 6000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function config(): TRoutingConfig {
  const hook = (name: string) => ({
    type: "webhook" as const,
    url: receiver.url(`/hook/${name}`),
    secret: HOOK_SECRET,
  });
  return {
    version: 1,
    channels: [
      { name: "team", ownerRole: "the team", targets: [hook("team")] },
      { name: "stale", ownerRole: "integration owner", targets: [hook("stale")] },
    ],
    route: {
      receiver: "team",
      groupBy: ["server"],
      groupWait: "1s",
      groupInterval: "1s",
      repeatInterval: "1h",
      routes: [
        {
          name: "stale catalog",
          matchers: ['state="stale_catalog"'],
          receiver: "stale",
          groupBy: ["chain"],
          groupWait: "0s",
          delay: `${STALE_DELAY_MS}ms`,
          confirmOnNextRecord: true,
        },
        { name: "repeating", matchers: ['label.suite="repeat"'], repeatInterval: "2s" },
        {
          id: "grouping",
          name: "grouping",
          matchers: ['label.suite="group"'],
          groupWait: "5s",
          groupInterval: "5s",
        },
      ],
    },
    inhibitRules: DEFAULT_ROUTING_CONFIG.inhibitRules,
    silences: [],
  };
}

/** Notifications (webhook bodies) that mention a server, in arrival order. */
const notificationsFor = (server: string, path = "/hook/team") =>
  webhookBodies(receiver.received(path)).filter((b) => b.alerts.some((a) => a.server === server));
const notifiedChains = (path: string) =>
  new Set(webhookBodies(receiver.received(path)).flatMap((b) => b.alerts.map((a) => a.chainId)));

const post = async (records: HealthRecord[]) => {
  const response = await ingest.post(records);
  expect(response.status, await response.clone().text()).toBe(200);
};
const later = (record: HealthRecord, id: string, ms: number, change: (r: HealthRecord) => void) => {
  const next = structuredClone(record);
  next.recordId = `rec:${id}`;
  next.observedAt = new Date(Date.parse(record.observedAt) + ms).toISOString();
  change(next);
  return next;
};
/** The same call, now verified: its chain turns healthy. */
const healed = (record: HealthRecord, id: string) =>
  later(record, id, 60_000, (r) => (r.call = seedRecord("healthy", "x").call));

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  app = await startApp(db.url, FAST_ROUTING_ENV);
  ingest = apiClient(app.baseUrl, await createTestKey(db.url, "agent"));
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
  await admin.saveConfig(config());
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

const toolFailed = (id: string, server: string, change?: (r: HealthRecord) => void) =>
  seedRecord("tool_failed", id, (r) => {
    if (r.session.server) r.session.server.name = server;
    change?.(r);
  });

describe("grouping and timing", () => {
  it("20 chains of one server arriving within one groupWait → one notification listing all 20", async () => {
    const chains = Array.from({ length: 20 }, (_, i) =>
      toolFailed(`group-${i}`, "grouped-srv", (r) => (r.labels = { suite: "group" })),
    );
    // Four batches, 100 ms apart, all inside the route's 3 s groupWait.
    const started = Date.now();
    await Promise.all(
      [0, 1, 2, 3].map((i) => sleep(i * 100).then(() => post(chains.slice(i * 5, i * 5 + 5)))),
    );
    expect(Date.now() - started).toBeLessThan(3000);
    await receiver.waitFor(() => notificationsFor("grouped-srv").length > 0, 10_000);
    await sleep(1000); // the group's next notification could not be before groupInterval anyway; none is due
    const sent = notificationsFor("grouped-srv");
    expect(sent).toHaveLength(1);
    expect(sent[0]?.alerts).toHaveLength(20);
    expect(sent[0]?.groupKey).toBe('grouping/team:{server="grouped-srv"}');
  });

  it("an unchanged firing group is sent again after repeatInterval", async () => {
    await post([toolFailed("repeat-1", "repeat-srv", (r) => (r.labels = { suite: "repeat" }))]);
    await receiver.waitFor(() => notificationsFor("repeat-srv").length >= 2, 10_000);
    const [first, second] = receiver.received("/hook/team").filter((r) => r.body.includes("repeat-srv"));
    expect(second?.body.replace(/"startsAt":"[^"]+"/, "")).toBe(
      first?.body.replace(/"startsAt":"[^"]+"/, ""),
    );
    // Due at the first send's flush tick + repeatInterval (2 s): the first send's own lateness (flush and HTTP, on a
    // loaded machine) shortens the gap the receiver sees, but never to a groupInterval (1 s).
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1500);
  });

  it("chains that turn healthy are sent as resolved; the last one resolves the group", async () => {
    const chains = ["res-a", "res-b", "res-c"].map((id) => toolFailed(id, "resolving-srv"));
    await post(chains);
    await receiver.waitFor(() => notificationsFor("resolving-srv").length === 1, 10_000);
    await post([healed(chains[0] as HealthRecord, "res-a-2"), healed(chains[1] as HealthRecord, "res-b-2")]);
    await receiver.waitFor(() => notificationsFor("resolving-srv").length === 2, 10_000);
    const second = notificationsFor("resolving-srv")[1];
    expect(second?.status).toBe("firing");
    expect(second?.alerts.map((a) => `${a.status} ${a.chainId}`).sort()).toEqual([
      "firing chain:res-c",
      "resolved chain:res-a",
      "resolved chain:res-b",
    ]);
    expect(second?.alerts.filter((a) => a.status === "resolved").every((a) => a.endsAt !== undefined)).toBe(
      true,
    );
    await post([healed(chains[2] as HealthRecord, "res-c-2")]);
    await receiver.waitFor(() => notificationsFor("resolving-srv").length === 3, 10_000);
    expect(notificationsFor("resolving-srv")[2]).toMatchObject({
      status: "resolved",
      alerts: [{ chainId: "chain:res-c", status: "resolved" }],
    });
  });
});

describe("silences and inhibition", () => {
  it("a silence mutes matching alerts (never effect_unknown); expiring it lets them through", async () => {
    const silence = await admin.post("/silences", {
      matchers: ['server="silenced-srv"'],
      duration: "1h",
      comment: "maintenance window",
    });
    expect(silence.status).toBe(201);
    await post([
      toolFailed("silenced-tool", "silenced-srv"),
      seedRecord("effect_unknown", "silenced-effect", (r) => {
        if (r.session.server) r.session.server.name = "silenced-srv";
      }),
    ]);
    await receiver.waitFor(() => notifiedChains("/hook/team").has("chain:silenced-effect"), 10_000);
    await sleep(1500);
    expect(notifiedChains("/hook/team").has("chain:silenced-tool")).toBe(false);
    const test = await admin.post("/route-test", { chainId: "chain:silenced-tool" });
    expect(test.json.alerts[0].silencedBy).toMatchObject({
      createdBy: "admin",
      comment: "maintenance window",
    });
    expect((await admin.del(`/silences/${silence.json.silence.id}`)).status).toBe(200);
    await receiver.waitFor(() => notifiedChains("/hook/team").has("chain:silenced-tool"), 10_000);
  });

  it("an unresolved needs_auth inhibits the server's other alerts except effect_unknown, until it resolves", async () => {
    const onServer = (r: HealthRecord) => {
      if (r.session.server) r.session.server.name = "locked-srv";
    };
    const auth = seedRecord("needs_auth", "inhibit-auth", onServer);
    await post([
      auth,
      toolFailed("inhibit-tool", "locked-srv"),
      seedRecord("effect_unknown", "inhibit-effect", onServer),
    ]);
    await receiver.waitFor(
      () =>
        notifiedChains("/hook/team").has("chain:inhibit-auth") &&
        notifiedChains("/hook/team").has("chain:inhibit-effect"),
      10_000,
    );
    await sleep(1500);
    expect(notifiedChains("/hook/team").has("chain:inhibit-tool")).toBe(false);
    const resolvedAuth = later(auth, "inhibit-auth-2", 60_000, (r) => {
      if (r.session.auth) r.session.auth.resolvedAt = r.observedAt;
    });
    await post([resolvedAuth]);
    await receiver.waitFor(() => notifiedChains("/hook/team").has("chain:inhibit-tool"), 10_000);
  });
});

describe("stale_catalog: one bounded re-discovery before an integration incident", () => {
  it("alerts only when still stale on the next record or after the wait; a successful re-discovery stays quiet", async () => {
    const stale = (id: string, session: string) =>
      seedRecord("stale_catalog", id, (r) => {
        r.session.id = `sess:${session}`;
        if (r.session.server) r.session.server.name = `srv-${session}`;
      });
    // The stale seed case's tool list changed 4.5 minutes before its call: a complete re-read 4 minutes before it is fresh.
    const freshListAt = (r: HealthRecord) => new Date(Date.parse(r.observedAt) - 4 * 60_000).toISOString();
    const sameChainFixed = stale("st-a", "a");
    const confirmedFirst = stale("st-b1", "b");
    const waitedOut = stale("st-c", "c");
    const sessionFixed = stale("st-d1", "d");
    const startedAt = Date.now();
    await post([sameChainFixed, confirmedFirst, waitedOut, sessionFixed]);
    await sleep(300);
    const nextRecords = [
      // the same chain re-read the tool list completely before calling: no longer stale
      later(sameChainFixed, "st-a-2", 1000, (r) => {
        if (r.catalog) r.catalog.refreshedAt = freshListAt(sameChainFixed);
      }),
      // the session's next record (another call) is still stale: the re-discovery did not help
      later(confirmedFirst, "st-b2", 1000, (r) => (r.chainId = "chain:st-b2")),
      // the session's next call went through with a fresh list
      later(sessionFixed, "st-d2", 1000, (r) => {
        r.chainId = "chain:st-d2";
        if (r.catalog) r.catalog.refreshedAt = freshListAt(sessionFixed);
      }),
    ];
    await post(nextRecords);
    await receiver.waitFor(() => notifiedChains("/hook/stale").has("chain:st-c"), 15_000);
    const arrival = (chainId: string) =>
      receiver.received("/hook/stale").find((r) => r.body.includes(`"chainId":"${chainId}"`))?.at;
    expect((arrival("chain:st-b1") ?? Number.POSITIVE_INFINITY) - startedAt).toBeLessThan(
      STALE_DELAY_MS - 1000,
    );
    expect((arrival("chain:st-c") ?? 0) - startedAt).toBeGreaterThanOrEqual(STALE_DELAY_MS);
    expect(notifiedChains("/hook/stale").has("chain:st-a")).toBe(false);
    expect(notifiedChains("/hook/stale").has("chain:st-d1")).toBe(false);
  });
});
