import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { verifySignature } from "@/lib/routing/sign";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { FAST_ROUTING_ENV, routingApi, seedRecord } from "@/tests/support/routing-helpers";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// The routing API: config as versioned data (validated, masked, exported and imported), silences, the route test,
// test notifications, the delivery log and operator resolves. Reads need "read"; changes need a dashboard session.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let admin: ReturnType<typeof routingApi>;
let readKey: string;
let ingestKey: string;

const SECRET = "api-test-secret-000000001";

function teamConfig(): TRoutingConfig {
  const config = structuredClone(DEFAULT_ROUTING_CONFIG);
  const tool = config.channels.find((c) => c.name === "tool-owner");
  if (tool) tool.targets = [{ type: "webhook", url: receiver.url("/hook/tool"), secret: SECRET }];
  config.route.groupWait = "0s";
  config.route.groupInterval = "1s";
  return config;
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  readKey = await createTestKey(db.url, "reader", ["read"]);
  ingestKey = await createTestKey(db.url, "agent");
  app = await startApp(db.url, FAST_ROUTING_ENV);
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("config", () => {
  it("a fresh install serves the shipped default as version 'default'", async () => {
    const response = await admin.get("/config");
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ version: "default", isDefault: true });
    expect(response.json.config.channels.map((c: { name: string }) => c.name)).toContain("reconciliation");
  });

  it("an invalid config is refused with 422 and every problem's JSON path; nothing is saved", async () => {
    const bad = structuredClone(DEFAULT_ROUTING_CONFIG) as unknown as { route: Record<string, unknown> };
    bad.route.receiver = "nobody";
    bad.route.groupWait = "10m";
    const response = await admin.put("/config", bad);
    expect(response.status).toBe(422);
    expect(response.json.error.code).toBe("invalid_routing_config");
    expect(response.json.error.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(["$.route.receiver", "$.route.groupWait"]),
    );
    expect((await admin.get("/config")).json.version).toBe("default");
  });

  it("saving makes a new version; secrets come back masked and survive a masked round trip", async () => {
    const saved = await admin.put("/config", teamConfig());
    expect(saved.status).toBe(200);
    expect(saved.json.version).toBe("1");
    const read = await admin.get("/config");
    const text = JSON.stringify(read.json);
    expect(text).not.toContain(SECRET);
    expect(text).toContain("••••••#tool-owner/0");
    // Save the masked copy back (as the UI does): the stored secret is kept.
    const again = await admin.put("/config", read.json.config, { "if-match": '"1"' });
    expect(again.status).toBe(200);
    expect(again.json.version).toBe("2");
    const test = await admin.post("/test-notification", { channel: "tool-owner" });
    expect(test.status).toBe(202);
    await receiver.waitFor((all) => all.length >= 1, 10_000);
    const [got] = receiver.received("/hook/tool");
    expect(verifySignature(got?.body ?? "", got?.headers ?? {}, SECRET, Date.now())).toEqual({ ok: true });
    expect(got?.json).toMatchObject({
      alerts: [{ chainId: "receipt-test-notification", labels: { test: "true" } }],
    });
  });

  it("a save based on an older version is refused with 409", async () => {
    const response = await admin.put("/config", teamConfig(), { "if-match": '"1"' });
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe("config_changed");
  });

  it("exports as a file that imports unchanged; the history lists every version", async () => {
    const file = await fetch(`${app.baseUrl}/api/v1/routing/config?download=1`, {
      headers: { authorization: `Bearer ${readKey}` },
    });
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="receipt-routing-2.json"');
    const imported = await admin.put("/config?comment=from%20git", await file.json());
    expect(imported.status).toBe(200);
    const versions = await admin.get("/config/versions");
    expect(versions.json.versions.map((v: { version: string }) => v.version)).toEqual(["3", "2", "1"]);
    expect(versions.json.versions[0]).toMatchObject({ createdBy: "admin", comment: "from git" });
  });

  it("a read key can read the config but not change it", async () => {
    const client = apiClient(app.baseUrl, readKey);
    expect((await client.get("/api/v1/routing/config")).status).toBe(200);
    const put = await fetch(`${app.baseUrl}/api/v1/routing/config`, {
      method: "PUT",
      headers: { authorization: `Bearer ${readKey}`, "content-type": "application/json" },
      body: JSON.stringify(teamConfig()),
    });
    expect(put.status).toBe(403);
  });
});

describe("silences", () => {
  let id = "";
  it("creates, lists, edits and expires a silence; a bad matcher is a 422 with its path", async () => {
    const bad = await admin.post("/silences", { matchers: ["server=x"], duration: "1h", comment: "oops" });
    expect(bad.status).toBe(422);
    expect(bad.json.error.issues[0]).toMatchObject({ path: "$.matchers[0]", code: "invalid_matcher" });
    const created = await admin.post("/silences", {
      matchers: ['server="db-1"'],
      duration: "2h",
      comment: "migration",
    });
    expect(created.status).toBe(201);
    id = created.json.silence.id;
    expect(created.json.silence).toMatchObject({ createdBy: "admin", status: "active" });
    const edited = await admin.put(`/silences/${id}`, {
      matchers: ['server="db-1"', 'state="tool_failed"'],
      duration: "1h",
      comment: "migration, tools only",
    });
    expect(edited.json.silence.matchers).toHaveLength(2);
    expect((await admin.get("/silences")).json.silences.map((s: { id: string }) => s.id)).toContain(id);
    const expired = await admin.del(`/silences/${id}`);
    expect(expired.json.silence.status).toBe("expired");
    expect((await admin.del("/silences/not-a-uuid")).status).toBe(404);
  });
});

describe("route test", () => {
  it("a pasted record: which channels, and why", async () => {
    const record = seedRecord("effect_unknown", "rt-1");
    const response = await admin.post("/route-test", { record });
    expect(response.status).toBe(200);
    expect(response.json.chain).toMatchObject({ state: "effect_unknown" });
    expect(response.json.chain.reasons[0]).toBe("effect.unreconciled");
    expect(response.json.channels).toEqual(["reconciliation", "integration-owner"]);
    expect(response.json.explanation.join("\n")).toMatch(
      /effect_unknown → reconciliation \(recorded, not delivered: no target\) .*state="effect_unknown"/,
    );
    // Neither channel has a target: the answer must not read as if anyone were told.
    expect(response.json.undelivered).toEqual(["reconciliation", "integration-owner"]);
    expect(response.json.alerts[0].routes.map((r: { delivered: boolean }) => r.delivered)).toEqual([
      false,
      false,
    ]);
  });

  it("a channel with a target is delivered", async () => {
    const response = await admin.post("/route-test", { record: seedRecord("tool_failed", "rt-3") });
    expect(response.json.channels).toEqual(["tool-owner"]);
    expect(response.json.undelivered).toEqual([]);
    expect(response.json.alerts[0].routes[0]).toMatchObject({ receiver: "tool-owner", delivered: true });
  });

  it("an invalid pasted record → 422 with paths under $.record; an unknown chain → 404", async () => {
    const response = await admin.post("/route-test", { record: { schemaVersion: 1 } });
    expect(response.status).toBe(422);
    expect(response.json.error.issues[0].path).toMatch(/^\$\.record/);
    expect((await admin.post("/route-test", { chainId: "chain:none" })).status).toBe(404);
  });

  it("an existing chain, by id", async () => {
    await apiClient(app.baseUrl, ingestKey).post([seedRecord("protocol_error", "rt-2")]);
    const response = await admin.post("/route-test", { chainId: "chain:rt-2" });
    expect(response.json.channels).toEqual(["client-implementer"]);
  });
});

describe("test notifications, the delivery log, operator resolve", () => {
  it("refuses an unknown channel (404) and a channel without targets (422)", async () => {
    expect((await admin.post("/test-notification", { channel: "nope" })).status).toBe(404);
    const empty = await admin.post("/test-notification", { channel: "outcome-incident" });
    expect(empty.status).toBe(422);
    expect(empty.json.error.code).toBe("no_targets");
  });

  it("the delivery log shows each delivery with its attempts; only dead letters can be retried", async () => {
    const log = await admin.get("/deliveries?limit=5");
    const [latest] = log.json.deliveries;
    expect(latest).toMatchObject({ kind: "test", channel: "tool-owner", status: "delivered", attempts: 1 });
    expect(latest.attemptLog[0]).toMatchObject({ statusCode: 200, error: null });
    expect(JSON.stringify(log.json)).not.toContain(SECRET);
    expect((await admin.post(`/deliveries/${latest.id}/retry`, {})).status).toBe(409);
    expect((await admin.post("/deliveries/999999/retry", {})).status).toBe(404);
  });

  it("an operator resolves a firing alert: the receiver is told it is resolved", async () => {
    await apiClient(app.baseUrl, ingestKey).post([seedRecord("tool_failed", "op-1")]);
    await receiver.waitFor((all) => all.some((r) => r.body.includes("chain:op-1")), 10_000);
    const alerts = await admin.get("/alerts");
    const alert = alerts.json.alerts.find((a: { chainId: string }) => a.chainId === "chain:op-1");
    const resolved = await admin.post(`/alerts/${alert.fingerprint}/resolve`, {});
    expect(resolved.status).toBe(200);
    await receiver.waitFor(
      (all) => all.some((r) => r.body.includes("chain:op-1") && r.body.includes('"status":"resolved"')),
      10_000,
    );
    expect((await admin.post(`/alerts/${alert.fingerprint}/resolve`, {})).status).toBe(409);
    const after = await admin.get("/alerts?status=resolved");
    expect(after.json.alerts[0]).toMatchObject({ chainId: "chain:op-1", resolvedBy: "operator:admin" });
  });

  it("resolving a false-success triage item resolves the chain's alert: the receiver is told", async () => {
    const config = teamConfig();
    const incident = config.channels.find((c) => c.name === "outcome-incident");
    if (incident)
      incident.targets = [{ type: "webhook", url: receiver.url("/hook/incident"), secret: SECRET }];
    await admin.saveConfig(config);
    await apiClient(app.baseUrl, ingestKey).post([seedRecord("false_success", "triaged-1")]);
    await receiver.waitFor(
      (all) => all.some((r) => r.path === "/hook/incident" && r.body.includes("chain:triaged-1")),
      10_000,
    );
    const cookie = await adminCookie(app.baseUrl);
    const triage = await fetch(
      `${app.baseUrl}/api/v1/chains/${encodeURIComponent("chain:triaged-1")}/triage`,
      {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({
          action: "resolve",
          queue: "false_success",
          note: "re-ran the export by hand",
        }),
      },
    );
    expect(triage.status).toBe(200);
    await receiver.waitFor(
      (all) =>
        all.some(
          (r) =>
            r.path === "/hook/incident" &&
            r.body.includes("chain:triaged-1") &&
            r.body.includes('"status":"resolved"'),
        ),
      10_000,
    );
    const after = await admin.get("/alerts?status=resolved");
    expect(after.json.alerts.find((a: { chainId: string }) => a.chainId === "chain:triaged-1")).toMatchObject(
      {
        resolvedBy: "operator:admin",
      },
    );
  });
});
