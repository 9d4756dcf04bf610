import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeliveryView } from "@/lib/dashboard/routing-api-types";
import type { TRoutingConfig, TTarget } from "@/lib/routing/config";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { FAST_ROUTING_ENV, HOOK_SECRET, routingApi, seedRecord } from "@/tests/support/routing-helpers";
import { type ScriptedReceiver, startScriptedReceiver } from "@/tests/support/scripted-receiver";
import { createTeamUser, signInCookie } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// The outbound policy as an attacker meets it (issue 39 §3): the app runs with the production default, nothing
// private or local allowed. Targets at metadata, loopback, the database or the app itself are refused when saved, by
// an admin and by a viewer's own target; a name that resolves to loopback is refused at connect time, and the
// delivery log readers see says "refused by the outbound policy", never a socket error to probe ports with.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: ScriptedReceiver;
let app: RunningApp;
let admin: ReturnType<typeof routingApi>;
let viewerCookie: string;
let key: string;

const config = (target: TTarget): TRoutingConfig => ({
  version: 1,
  channels: [{ name: "ops", ownerRole: "ops", targets: [target] }],
  route: { receiver: "ops", groupBy: ["..."], groupWait: "0s", groupInterval: "1s", repeatInterval: "1h" },
  inhibitRules: [],
  silences: [],
});

const webhook = (url: string): TTarget => ({ type: "webhook", url, secret: HOOK_SECRET });

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startScriptedReceiver(() => ({ status: 200 }));
  key = await createTestKey(db.url, "agent", ["ingest", "read"]);
  const boss = await createTeamUser(db.url, "boss", "admin");
  const vic = await createTeamUser(db.url, "vic", "viewer");
  app = await startApp(db.url, { ...FAST_ROUTING_ENV, RECEIPT_OUTBOUND_ALLOW: "" });
  admin = routingApi(app.baseUrl, await signInCookie(app.baseUrl, boss.username, boss.password));
  viewerCookie = await signInCookie(app.baseUrl, vic.username, vic.password);
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("saving a target the policy refuses", () => {
  const databasePort = () => new URL(db.url).port;
  const appPort = () => new URL(app.baseUrl).port;
  const cases: [string, () => string, string][] = [
    ["AWS metadata", () => "http://169.254.169.254/latest/meta-data/iam/", "metadata address"],
    ["AWS metadata over IPv6", () => "http://[fd00:ec2::254]/latest/meta-data/", "metadata address"],
    ["GCP metadata by name", () => "http://metadata.google.internal/computeMetadata/v1/", "metadata address"],
    ["loopback in decimal", () => "http://2130706433:8080/", "loopback address"],
    ["IPv4-mapped loopback", () => "http://[::ffff:127.0.0.1]:8080/", "loopback address"],
    ["a private address", () => "https://10.20.30.40/hook", "private address"],
    ["the database's port", () => `http://127.0.0.1:${databasePort()}/`, "the database's address"],
    ["the app's own API", () => `http://127.0.0.1:${appPort()}/api/v1/records`, "this app's own address"],
  ];

  it.each(cases)(
    "%s: 422 outbound_refused at the target's url, nothing saved",
    async (_name, url, reason) => {
      const before = await admin.get("/config");
      const answer = await admin.put("/config", config(webhook(url())));
      expect(answer.status).toBe(422);
      expect(answer.json.error.code).toBe("invalid_routing_config");
      expect(answer.json.error.issues).toEqual([
        {
          path: "$.channels[0].targets[0].url",
          code: "outbound_refused",
          message: `refused by the outbound policy (${reason})`,
        },
      ]);
      expect((await admin.get("/config")).json.version).toBe(before.json.version);
    },
  );

  it("the dry run (routing check) refuses it the same way", async () => {
    const answer = await admin.post("/config/check", config(webhook("http://169.254.169.254/")));
    expect(answer.status).toBe(422);
    expect(answer.json.error.issues[0]).toMatchObject({
      path: "$.channels[0].targets[0].url",
      code: "outbound_refused",
    });
  });

  it("Slack and PagerDuty targets post only to their vendor's host: 422 vendor_host_required", async () => {
    const slack = await admin.put(
      "/config",
      config({ type: "slack", url: "https://collector.attacker.example/services/T/B/X" }),
    );
    expect(slack.status).toBe(422);
    expect(slack.json.error.issues).toEqual([
      {
        path: "$.channels[0].targets[0].url",
        code: "vendor_host_required",
        message: "a Slack target posts to https://hooks.slack.com or https://hooks.slack-gov.com",
      },
    ]);
    const pagerduty = await admin.put(
      "/config",
      config({
        type: "pagerduty",
        routingKey: "PDKEY0123456789abcdef0123456789a",
        url: "https://pd.attacker.example/v2/enqueue",
      }),
    );
    expect(pagerduty.status).toBe(422);
    expect(pagerduty.json.error.issues[0]).toMatchObject({ code: "vendor_host_required" });
    const real = await admin.put(
      "/config",
      config({ type: "slack", url: "https://hooks.slack.com/services/T0/B0/XYZ" }),
    );
    expect(real.status).toBe(200);
  });

  it("a viewer's own notification target: 422 outbound_refused at $.url, nothing stored", async () => {
    const put = (body: unknown) =>
      fetch(`${app.baseUrl}/api/v1/me/notification-target`, {
        method: "PUT",
        headers: { cookie: viewerCookie, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (const url of ["http://169.254.169.254/latest/meta-data/", `http://127.0.0.1:${databasePort()}/`]) {
      const answer = await put({ kind: "webhook", url });
      expect(answer.status).toBe(422);
      const body = await answer.json();
      expect(body.error.code).toBe("outbound_refused");
      expect(body.error.issues[0]).toMatchObject({ path: "$.url", code: "outbound_refused" });
    }
    const slack = await put({ kind: "slack", url: "http://127.0.0.1:5432/services/x" });
    expect(slack.status).toBe(422);
    const stored = await fetch(`${app.baseUrl}/api/v1/me/notification-target`, {
      headers: { cookie: viewerCookie },
    });
    expect((await stored.json()).target).toBeNull();
  });
});

describe("a name that resolves to a refused address", () => {
  it("is saved, then refused at connect time: the delivery is dead at once, the receiver got nothing", async () => {
    // localhost resolves to 127.0.0.1 (and ::1): only the connection's own lookup sees that.
    const url = receiver.url("/hook").replace("127.0.0.1", "localhost");
    expect((await admin.put("/config", config(webhook(url)))).status).toBe(200);
    const record = seedRecord("false_success", "outbound-localhost");
    expect((await apiClient(app.baseUrl, key).post([record])).status).toBe(200);
    const read = async (): Promise<DeliveryView[]> =>
      (
        await (
          await fetch(`${app.baseUrl}/api/v1/routing/deliveries?channel=ops&limit=20`, {
            headers: { cookie: viewerCookie },
          })
        ).json()
      ).deliveries;
    let dead: DeliveryView | undefined;
    for (const deadline = Date.now() + 15_000; !dead && Date.now() < deadline; ) {
      dead = (await read()).find((delivery) => delivery.status === "dead");
      if (!dead) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(dead).toMatchObject({
      status: "dead",
      attempts: 1,
      lastError: "refused by the outbound policy (loopback address)",
    });
    expect(receiver.received("/hook")).toHaveLength(0);
  });
});

describe("a webhook URL's own credential", () => {
  it("is masked wherever a reader sees the URL: the config and the delivery log", async () => {
    const url = "http://localhost:9/in?token=tok_live_abcdef123456";
    expect((await admin.put("/config", config(webhook(url)))).status).toBe(200);
    const read = (path: string) => fetch(`${app.baseUrl}${path}`, { headers: { cookie: viewerCookie } });
    const shown = await (await read("/api/v1/routing/config")).json();
    expect(shown.config.channels[0].targets[0].url).toBe("http://localhost:9/in?••••••#ops/0");
    expect(JSON.stringify(shown)).not.toContain("tok_live");
    // A test notification to the channel: its delivery is logged (and refused at connect time: localhost).
    expect((await admin.post("/test-notification", { channel: "ops" })).status).toBe(202);
    let log = "";
    for (const deadline = Date.now() + 15_000; !log.includes("localhost:9") && Date.now() < deadline; ) {
      log = await (await read("/api/v1/routing/deliveries?channel=ops&limit=20")).text();
      if (!log.includes("localhost:9")) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(log).toContain('"url":"http://localhost:9/in?••••••"');
    expect(log).not.toContain("tok_live");
  });
});
