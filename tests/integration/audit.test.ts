import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRoutingConfig } from "@/lib/routing/config";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { apiClient, createKeyWithCli, type RunningApp, startApp } from "@/tests/support/app-server";
import { auditTable, type StoredAuditEvent } from "@/tests/support/audit-events";
import { liveCase } from "@/tests/support/dashboard-records";
import { adminCookie } from "@/tests/support/dashboard-session";
import { FAST_ROUTING_ENV, HOOK_SECRET, hookedDefaults, routingApi } from "@/tests/support/routing-helpers";
import { createTeamUser, signInCookie } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// Every administrative and responding action outside triage writes exactly one audit event in its own transaction:
// who (user id and name, or key:<name>), what, the target, before and after. A refused or failed action writes
// none, and no secret ever lands in the log. Real database, the built app, a real webhook receiver.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let audit: ReturnType<typeof auditTable>;
let admin: ReturnType<typeof routingApi>;
let responder: ReturnType<typeof routingApi>;
let viewer: ReturnType<typeof routingApi>;
let adminId: string;
let responderId: string;
let agentKey: string;
let ciKey: string;

const SLACK_URL = "https://hooks.slack.com/services/T0AUDIT/B0AUDIT/slack-secret-token-4711";
const PAGERDUTY_KEY = "pagerduty-routing-key-audit-0815";

/** Every channel hooked to the receiver; the outcome channel also posts to Slack and PagerDuty (never reached). */
function auditedConfig(deadPort: number): TRoutingConfig {
  return hookedDefaults(receiver, (config) => {
    for (const channel of config.channels) {
      if (channel.name === "outcome-incident")
        channel.targets.push(
          { type: "slack", url: SLACK_URL },
          { type: "pagerduty", routingKey: PAGERDUTY_KEY, url: `http://127.0.0.1:${deadPort}/pd` },
        );
      // Nothing listens there: its deliveries die after three attempts (FAST_ROUTING_ENV), to be retried.
      if (channel.name === "client-implementer")
        channel.targets = [
          { type: "webhook", url: `http://127.0.0.1:${deadPort}/down`, secret: HOOK_SECRET },
        ];
    }
  });
}

/** Runs `act` and returns the events it wrote. */
async function eventsOf(act: () => Promise<unknown>): Promise<StoredAuditEvent[]> {
  const mark = await audit.lastId();
  await act();
  return audit.after(mark);
}

async function oneEvent(act: () => Promise<unknown>): Promise<StoredAuditEvent> {
  const events = await eventsOf(act);
  expect(events, JSON.stringify(events)).toHaveLength(1);
  return events[0] as StoredAuditEvent;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const asAdmin = { actor: "admin" } as const;

beforeAll(async () => {
  db = await createTestDatabase();
  audit = auditTable(db.url);
  receiver = await startWebhookReceiver();
  agentKey = createKeyWithCli(db.url, "agent", ["ingest", "read"]);
  ciKey = createKeyWithCli(db.url, "ci-routing", ["admin"]);
  app = await startApp(db.url, FAST_ROUTING_ENV);
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
  const rita = await createTeamUser(db.url, `rita-${randomUUID().slice(0, 6)}`, "responder");
  const vic = await createTeamUser(db.url, `vic-${randomUUID().slice(0, 6)}`, "viewer");
  responderId = rita.id;
  responder = routingApi(app.baseUrl, await signInCookie(app.baseUrl, rita.username, rita.password));
  viewer = routingApi(app.baseUrl, await signInCookie(app.baseUrl, vic.username, vic.password));
  const [row] = await audit.query<{ id: string }>("select id::text from users where username = 'admin'");
  adminId = row?.id ?? "";
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

// The keys API lives beside routing: same cookie, other path.
const keys = (api: ReturnType<typeof routingApi>) => ({
  create: (body: unknown) => api.post("/../keys", body),
  revoke: (name: string) => api.del(`/../keys/${name}`),
});

describe("ingestion keys", () => {
  it("the CLI's key creation is audited as system", async () => {
    const [created] = await audit.query<StoredAuditEvent>(
      `select actor, action, target_type as "targetType", after from audit_events
        where action = 'key.create' and after->>'name' = 'agent'`,
    );
    expect(created).toMatchObject({ actor: "system", targetType: "key", after: { name: "agent" } });
  });

  it("create and revoke write one event each, by the admin, without the key or its hash", async () => {
    const name = `audit-${randomUUID().slice(0, 8)}`;
    let key = "";
    const created = await oneEvent(async () => {
      const answer = await keys(admin).create({ name, scopes: ["read"] });
      expect(answer.status, answer.text).toBe(201);
      key = answer.json.key;
    });
    expect(created).toMatchObject({
      ...asAdmin,
      actorUserId: adminId,
      action: "key.create",
      targetType: "key",
      before: null,
      after: { name, scopes: ["read"], revokedAt: null },
    });
    expect(created.targetId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(created)).not.toContain(key);
    const revoked = await oneEvent(async () => expect((await keys(admin).revoke(name)).status).toBe(200));
    expect(revoked).toMatchObject({ action: "key.revoke", targetId: created.targetId });
    expect(revoked.before.revokedAt).toBeNull();
    expect(Date.parse(revoked.after.revokedAt)).toBeGreaterThan(0);
  });

  it("a refused or failed key action writes nothing", async () => {
    const none = await eventsOf(async () => {
      expect((await keys(admin).create({ name: "agent", scopes: ["read"] })).status).toBe(409);
      expect((await keys(admin).revoke("no-such-key")).status).toBe(404);
      expect((await keys(responder).create({ name: "by-responder" })).status).toBe(403);
      expect((await keys(admin).create({ name: "Bad Name!" })).status).toBe(422);
    });
    expect(none).toEqual([]);
  });
});

describe("routing config", () => {
  let deadPort: number;
  beforeAll(async () => {
    deadPort = await portOutsideEphemeralRange();
  });

  it("apply: before and after name the versions and hold the configs masked exactly as GET config does", async () => {
    const applied = await oneEvent(async () => {
      const answer = await admin.put("/config?comment=hooks", auditedConfig(deadPort));
      expect(answer.status, answer.text).toBe(200);
    });
    const current = await admin.get("/config");
    expect(applied).toMatchObject({
      ...asAdmin,
      actorUserId: adminId,
      action: "routing.config_apply",
      targetType: "routing_config",
      targetId: current.json.version,
      before: { version: "default" },
      after: { version: current.json.version, comment: "hooks" },
    });
    expect(applied.after.config).toEqual(current.json.config);
    expect(applied.before.config.channels.every((c: { targets: unknown[] }) => c.targets.length === 0)).toBe(
      true,
    );
  });

  it("restore by an admin key: actor key:<name>, the version restored from", async () => {
    const restored = await oneEvent(async () => {
      const answer = await fetch(`${app.baseUrl}/api/v1/routing/config/versions/1/restore`, {
        method: "POST",
        headers: { authorization: `Bearer ${ciKey}` },
      });
      expect(answer.status, await answer.text()).toBe(201);
    });
    expect(restored).toMatchObject({
      actor: "key:ci-routing",
      actorUserId: null,
      action: "routing.config_restore",
      before: { version: "1" },
      after: { version: "2", restoredFrom: "1" },
    });
  });

  it("an invalid or stale config writes nothing", async () => {
    const none = await eventsOf(async () => {
      expect((await admin.put("/config", { version: 1, channels: "nope" })).status).toBe(422);
      const stale = await admin.put("/config", auditedConfig(deadPort), { "if-match": '"1"' });
      expect(stale.status).toBe(409);
      expect((await responder.put("/config", auditedConfig(deadPort))).status).toBe(403);
    });
    expect(none).toEqual([]);
  });

  it("no secret of any target is anywhere in the audit log", async () => {
    const text = await audit.allText();
    expect(text).toContain("hooks.slack.com");
    for (const secret of [HOOK_SECRET, SLACK_URL, "slack-secret-token-4711", PAGERDUTY_KEY])
      expect(text).not.toContain(secret);
  });
});

describe("test notifications and delivery retries", () => {
  it("a test notification names the channel and its deliveries; a dead one retried is audited once", async () => {
    const sent = await oneEvent(async () => {
      const answer = await admin.post("/test-notification", { channel: "client-implementer" });
      expect(answer.status, answer.text).toBe(202);
    });
    expect(sent).toMatchObject({
      ...asAdmin,
      action: "routing.test_notification",
      targetType: "receiver",
      targetId: "client-implementer",
      after: { channel: "client-implementer", targets: 1 },
    });
    const [deliveryId] = sent.after.deliveries as string[];
    await until(
      () => admin.get("/deliveries?status=dead&channel=client-implementer"),
      (answer) => answer.json?.deliveries?.some((d: { id: string }) => d.id === deliveryId),
      "the test delivery to die",
    );
    // The second retry at once: a retried delivery to a dead target dies again within a few hundred milliseconds
    // (three attempts, FAST_ROUTING_ENV's backoff), and dead again it could be retried again.
    const retried = await oneEvent(async () => {
      expect((await responder.post(`/deliveries/${deliveryId}/retry`, {})).status).toBe(202);
      expect((await responder.post(`/deliveries/${deliveryId}/retry`, {})).status).toBe(409);
    });
    expect(retried).toMatchObject({
      actorUserId: responderId,
      action: "delivery.retry",
      targetType: "delivery",
      targetId: deliveryId,
      before: { status: "dead", attempts: 3, channel: "client-implementer" },
      after: { status: "pending", attempts: 0 },
    });
    const none = await eventsOf(async () => {
      expect((await admin.post("/test-notification", { channel: "no-such-channel" })).status).toBe(404);
      expect((await responder.post("/test-notification", { channel: "client-implementer" })).status).toBe(
        403,
      );
    });
    expect(none).toEqual([]);
  });
});

describe("silences", () => {
  const body = { matchers: ['server="audit-silence"'], duration: "2h", comment: "maintenance window" };

  it("create, update and expire write one event each with before and after; refusals write none", async () => {
    let id = "";
    const created = await oneEvent(async () => {
      const answer = await responder.post("/silences", body);
      expect(answer.status, answer.text).toBe(201);
      id = answer.json.silence.id;
    });
    expect(created).toMatchObject({
      actorUserId: responderId,
      action: "silence.create",
      targetType: "silence",
      targetId: id,
      before: null,
      after: { matchers: body.matchers, comment: "maintenance window", expiredAt: null },
    });
    const updated = await oneEvent(async () => {
      const answer = await responder.put(`/silences/${id}`, { ...body, comment: "longer window" });
      expect(answer.status, answer.text).toBe(200);
    });
    expect(updated).toMatchObject({
      action: "silence.update",
      before: { comment: "maintenance window" },
      after: { comment: "longer window" },
    });
    const expired = await oneEvent(async () =>
      expect((await responder.del(`/silences/${id}`)).status).toBe(200),
    );
    expect(expired).toMatchObject({ action: "silence.expire", before: { expiredAt: null } });
    expect(Date.parse(expired.after.expiredAt)).toBeGreaterThan(0);
    const none = await eventsOf(async () => {
      expect((await responder.del(`/silences/${id}`)).status).toBe(200); // already expired: nothing changes
      expect((await responder.put(`/silences/${id}`, body)).status).toBe(409);
      expect((await responder.post("/silences", { ...body, matchers: ["=bad"] })).status).toBe(422);
      expect((await responder.del(`/silences/${randomUUID()}`)).status).toBe(404);
      expect((await viewer.post("/silences", body)).status).toBe(403);
    });
    expect(none).toEqual([]);
  });
});

describe("alerts and problems", () => {
  const record = liveCase(`audit-${randomUUID().slice(0, 8)}`, "tool_failed");

  beforeAll(async () => {
    expect((await apiClient(app.baseUrl, agentKey).post([record])).status).toBe(200);
  });

  it("resolving a firing alert is audited once with its chain; a second resolve writes none", async () => {
    const firing = await until(
      () => admin.get("/alerts"),
      (answer) => answer.json?.alerts?.some((a: { chainId: string }) => a.chainId === record.chainId),
      "the alert to fire",
    );
    const fingerprint = firing.json.alerts.find((a: { chainId: string }) => a.chainId === record.chainId)
      .fingerprint as string;
    const resolved = await oneEvent(async () =>
      expect((await responder.post(`/alerts/${fingerprint}/resolve`, {})).status).toBe(200),
    );
    expect(resolved).toMatchObject({
      actorUserId: responderId,
      action: "alert.resolve",
      targetType: "alert",
      targetId: fingerprint,
      before: { chainId: record.chainId, status: "firing" },
      after: { chainId: record.chainId, status: "resolved" },
    });
    const none = await eventsOf(async () => {
      expect((await responder.post(`/alerts/${fingerprint}/resolve`, {})).status).toBe(409);
      expect((await viewer.post(`/alerts/${fingerprint}/resolve`, {})).status).toBe(403);
    });
    expect(none).toEqual([]);
  });

  it("resolve and reopen a problem: one event each when something changes, none when nothing does", async () => {
    const server = record.session.server?.name ?? "";
    const page = await admin.get(`/../problems?server=${encodeURIComponent(server)}`);
    const key = page.json.problems.find((p: { state: string }) => p.state === "tool_failed").key as string;
    const act = (action: string) => responder.post(`/../problems/${key}/${action}`, {});
    const resolved = await oneEvent(async () => expect((await act("resolve")).status).toBe(200));
    expect(resolved).toMatchObject({
      actorUserId: responderId,
      action: "problem.resolve",
      targetType: "problem",
      targetId: key,
      before: { status: "open", resolution: null },
      after: { status: "resolved" },
    });
    expect(await eventsOf(async () => expect((await act("resolve")).status).toBe(200))).toEqual([]);
    const reopened = await oneEvent(async () => expect((await act("reopen")).status).toBe(200));
    expect(reopened).toMatchObject({
      action: "problem.reopen",
      before: { status: "resolved", resolution: resolved.after.resolution },
      after: { status: "open", resolution: null },
    });
    expect(await eventsOf(async () => expect((await act("reopen")).status).toBe(200))).toEqual([]);
  });
});
