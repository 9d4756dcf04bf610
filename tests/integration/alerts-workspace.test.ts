import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthRecord } from "@/lib/contract";
import type { AlertGroupsAnswer, WorkspaceAlertView } from "@/lib/dashboard/routing-api-types";
import type { TRoutingConfig } from "@/lib/routing/config";
import { alertFingerprint } from "@/lib/routing/fingerprint";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { FAST_ROUTING_ENV, HOOK_SECRET, routingApi, seedRecord } from "@/tests/support/routing-helpers";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// The alerts page's API on the real pipeline: records in → alerts → groups → deliveries to a real receiver (and to
// a closed port, and to a channel without targets), then what /alerts/groups, the silence preview and the delivery
// log say about them.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: WebhookReceiver;
let app: RunningApp;
let admin: ReturnType<typeof routingApi>;

const SHARED = "srv-shared";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function config(closedPort: number): TRoutingConfig {
  return {
    version: 1,
    channels: [
      {
        name: "main",
        ownerRole: "ops",
        targets: [{ type: "webhook", url: receiver.url("/hook/main"), secret: HOOK_SECRET }],
      },
      {
        name: "down",
        ownerRole: "ops",
        targets: [{ type: "webhook", url: `http://127.0.0.1:${closedPort}/hook`, secret: HOOK_SECRET }],
      },
      { name: "nobody", ownerRole: "ops", targets: [] },
    ],
    route: {
      receiver: "main",
      groupBy: ["server"],
      groupWait: "0s",
      groupInterval: "1s",
      repeatInterval: "1h",
      routes: [
        { name: "down-route", matchers: ['label.suite="down"'], receiver: "down" },
        { name: "nobody-route", matchers: ['label.suite="nobody"'], receiver: "nobody" },
      ],
    },
    inhibitRules: [],
    silences: [],
  };
}

const record = (state: string, id: string, suite: string, server = `srv-${id}`): HealthRecord =>
  seedRecord(state, `ws-${id}`, (r) => {
    r.labels = { suite };
    if (r.session.server) r.session.server.name = server;
  });

const groups = async (query: string): Promise<AlertGroupsAnswer> => {
  const answer = await admin.get(`/alerts/groups${query}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
};
const alertsOf = (answer: AlertGroupsAnswer): (WorkspaceAlertView & { receiver: string; route: string })[] =>
  answer.groups.flatMap((g) =>
    g.alerts.map((a) => ({ ...a, receiver: g.receiver, route: g.routeName ?? g.routeId })),
  );
const byChain = async (query: string, chainId: string) =>
  alertsOf(await groups(query)).find((a) => a.chainId === chainId);

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(150);
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  const closedPort = await portOutsideEphemeralRange();
  const key = await createTestKey(db.url, "agent");
  app = await startApp(db.url, FAST_ROUTING_ENV);
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
  await admin.saveConfig(config(closedPort));
  const response = await apiClient(app.baseUrl, key).post([
    record("tool_failed", "a1", "main", SHARED),
    record("tool_failed", "a2", "main", SHARED),
    record("effect_unknown", "eu1", "main", SHARED),
    record("tool_failed", "d1", "down"),
    record("tool_failed", "n1", "nobody"),
  ]);
  expect(response.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("GET /api/v1/routing/alerts/groups", () => {
  it("groups firing alerts by receiver and group, with each one's delivery status", async () => {
    const settled = await until(
      () => groups(""),
      (answer) => {
        const status = new Map(alertsOf(answer).map((a) => [a.chainId, a.delivery]));
        return (
          status.get("chain:ws-a1") === "delivered" &&
          status.get("chain:ws-d1") === "failed" &&
          status.get("chain:ws-n1") === "no_target"
        );
      },
      "deliveries to settle",
    );
    const shared = settled.groups.find((g) => g.receiver === "main" && g.groupLabels.server === SHARED);
    expect(shared?.alerts.map((a) => a.chainId).sort()).toEqual([
      "chain:ws-a1",
      "chain:ws-a2",
      "chain:ws-eu1",
    ]);
    expect(settled.receivers).toEqual(expect.arrayContaining(["main", "down", "nobody"]));
    const dead = alertsOf(settled).find((a) => a.chainId === "chain:ws-d1");
    expect(dead).toMatchObject({ receiver: "down", route: "down-route", status: "firing" });
    expect(dead?.deliveries[0]).toMatchObject({ status: "dead", attempts: 3 });
    expect(dead?.deliveries[0]?.lastError).toBeTruthy();
    const a1 = alertsOf(settled).find((a) => a.chainId === "chain:ws-a1");
    expect(a1?.lastNotifiedAt).not.toBeNull();
  });

  it("filters by receiver, state, severity and text", async () => {
    expect(alertsOf(await groups("?receiver=down")).map((a) => a.chainId)).toEqual(["chain:ws-d1"]);
    const protectedOnly = alertsOf(await groups("?state=effect_unknown"));
    expect(protectedOnly.map((a) => a.chainId)).toEqual(["chain:ws-eu1"]);
    expect(alertsOf(await groups("?q=WS-N1")).map((a) => a.chainId)).toEqual(["chain:ws-n1"]);
    expect(alertsOf(await groups(`?q=${SHARED}&severity=critical`)).map((a) => a.chainId)).toEqual([
      "chain:ws-eu1",
    ]);
    const limited = await groups("?limit=2");
    expect(limited).toMatchObject({ alertCount: 2, truncated: true });
  });

  it("answers a bad filter with 400 invalid_query and the parameter's path", async () => {
    for (const [query, path] of [
      ["?state=on_fire", "$.query.state"],
      ["?status=any", "$.query.status"],
      ["?limit=0", "$.query.limit"],
      ["?severity=loud", "$.query.severity"],
      ["?colour=red", "$.query"],
    ] as const) {
      const answer = await admin.get(`/alerts/groups${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.json.error.code).toBe("invalid_query");
      expect(answer.json.error.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });
});

describe("silence preview and silencing from an alert", () => {
  it("previews what a silence would mute, keeping protected states unless named", async () => {
    const broad = await admin.post("/silences/preview", { matchers: [`server="${SHARED}"`] });
    expect(broad.status, broad.text).toBe(200);
    expect(broad.json.muted.map((a: { chainId: string }) => a.chainId).sort()).toEqual([
      "chain:ws-a1",
      "chain:ws-a2",
    ]);
    expect(broad.json.keptProtected.map((a: { chainId: string }) => a.chainId)).toEqual(["chain:ws-eu1"]);
    const named = await admin.post("/silences/preview", {
      matchers: [`server="${SHARED}"`, 'state="effect_unknown"'],
    });
    expect(named.json.muted.map((a: { chainId: string }) => a.chainId)).toEqual(["chain:ws-eu1"]);
    expect(named.json.keptProtected).toEqual([]);
  });

  it("refuses a bad matcher with its path, and stores nothing", async () => {
    const bad = await admin.post("/silences/preview", { matchers: ['server="x"', "server=unquoted"] });
    expect(bad.status).toBe(422);
    expect(bad.json.error.issues[0].path).toBe("$.matchers[1]");
    const empty = await admin.post("/silences/preview", { matchers: [] });
    expect(empty.status).toBe(422);
    expect((await admin.get("/silences")).json.silences).toEqual([]);
  });

  it("a silence made from the preview's matchers shows the alert silenced", async () => {
    const created = await admin.post("/silences", {
      matchers: ['chain="chain:ws-a2"'],
      duration: "1h",
      comment: "known flaky",
    });
    expect(created.status, created.text).toBe(201);
    const a2 = await byChain("", "chain:ws-a2");
    expect(a2).toMatchObject({ delivery: "silenced", silencedBy: created.json.silence.id });
    expect((await byChain("", "chain:ws-a1"))?.delivery).toBe("delivered");
  });
});

describe("a chain's alerts and recently resolved alerts", () => {
  it("lists a chain's alerts firing or resolved, and resolved ones on the resolved tab", async () => {
    const fingerprint = alertFingerprint("chain:ws-n1", "tool_failed");
    expect((await admin.post(`/alerts/${fingerprint}/resolve`, {})).status).toBe(200);
    const resolved = await byChain("?status=resolved", "chain:ws-n1");
    expect(resolved).toMatchObject({ status: "resolved", receiver: "nobody" });
    expect(await byChain("", "chain:ws-n1")).toBeUndefined();
    const ofChain = alertsOf(await groups("?status=any&chain=chain:ws-n1"));
    expect(ofChain.map((a) => [a.chainId, a.status])).toEqual([["chain:ws-n1", "resolved"]]);
  });
});

describe("GET /api/v1/routing/deliveries", () => {
  it("names each notification's route, group labels and chains, filters by chain and pages back", async () => {
    const ofChain = await admin.get("/deliveries?chain=chain:ws-d1");
    expect(ofChain.status, ofChain.text).toBe(200);
    const [first] = ofChain.json.deliveries;
    expect(first).toMatchObject({
      channel: "down",
      group: { routeName: "down-route", labels: { server: "srv-d1" } },
    });
    expect(first.alerts).toEqual([
      {
        fingerprint: alertFingerprint("chain:ws-d1", "tool_failed"),
        chainId: "chain:ws-d1",
        state: "tool_failed",
      },
    ]);
    expect((await admin.get("/deliveries?chain=no-such-chain")).json.deliveries).toEqual([]);
    const page1 = await admin.get("/deliveries?limit=1");
    expect(page1.json.nextCursor).toBeTruthy();
    const page2 = await admin.get(`/deliveries?limit=1&before=${page1.json.nextCursor}`);
    expect(BigInt(page2.json.deliveries[0].id)).toBeLessThan(BigInt(page1.json.deliveries[0].id));
  });

  it("answers a bad cursor or filter with 400 invalid_query", async () => {
    for (const [query, path] of [
      ["?before=abc", "$.query.before"],
      ["?status=lost", "$.query.status"],
      ["?chain=", "$.query.chain"],
    ] as const) {
      const answer = await admin.get(`/deliveries${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.json.error).toMatchObject({
        code: "invalid_query",
        issues: [expect.objectContaining({ path })],
      });
    }
  });
});
