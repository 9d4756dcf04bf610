import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRoutingConfig } from "@/lib/routing/config";
import { DEFAULT_ROUTING_CONFIG } from "@/lib/routing/defaults";
import { verifySignature } from "@/lib/routing/sign";
import { createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { FAST_ROUTING_ENV, routingApi } from "@/tests/support/routing-helpers";
import { createTestDatabase } from "@/tests/support/test-database";
import { startWebhookReceiver, type WebhookReceiver } from "@/tests/support/webhook-receiver";

// The routing config's history: every version readable with its secrets masked, paged, and restorable as a new
// version that keeps the secrets that version stored, even when the current config no longer has its targets.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let receiver: WebhookReceiver;
let admin: ReturnType<typeof routingApi>;
let readKey: string;
let adminKey: string;

const FIRST_SECRET = "versions-first-secret-0001";

function withHook(secret: string | null): TRoutingConfig {
  const config = structuredClone(DEFAULT_ROUTING_CONFIG);
  const tool = config.channels.find((c) => c.name === "tool-owner");
  if (tool) tool.targets = secret ? [{ type: "webhook", url: receiver.url("/hook/tool"), secret }] : [];
  return config;
}

const readAs = (key: string, path: string, init: RequestInit = {}) =>
  fetch(`${app.baseUrl}/api/v1/routing${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...init.headers },
  });

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startWebhookReceiver();
  readKey = await createTestKey(db.url, "reader", ["read"]);
  adminKey = await createTestKey(db.url, "ci-routing", ["admin"]);
  app = await startApp(db.url, FAST_ROUTING_ENV);
  admin = routingApi(app.baseUrl, await adminCookie(app.baseUrl));
  // v1 has the tool-owner webhook, v2 drops it, v3 only changes a timing.
  expect((await admin.put("/config?comment=first%20hook", withHook(FIRST_SECRET))).status).toBe(200);
  expect((await admin.put("/config?comment=no%20hook", withHook(null))).status).toBe(200);
  const third = withHook(null);
  third.route.groupWait = "10s";
  expect((await admin.put("/config?comment=faster", third)).status).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await db?.drop();
});

describe("a version", () => {
  it("reads with its secrets masked, by whom, why and whether it is current", async () => {
    const first = await admin.get("/config/versions/1");
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      version: "1",
      createdBy: "admin",
      comment: "first hook",
      isCurrent: false,
    });
    expect(first.text).not.toContain(FIRST_SECRET);
    const tool = first.json.config.channels.find((c: { name: string }) => c.name === "tool-owner");
    expect(tool.targets).toEqual([
      { type: "webhook", url: receiver.url("/hook/tool"), secret: "••••••#tool-owner/0" },
    ]);
    const third = await readAs(readKey, "/config/versions/3");
    expect(third.status).toBe(200);
    expect(await third.json()).toMatchObject({
      version: "3",
      isCurrent: true,
      config: { route: { groupWait: "10s" } },
    });
  });

  it("an unknown version is 404; a version that is not a number is 400 invalid_path", async () => {
    const missing = await admin.get("/config/versions/999999");
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("not_found");
    for (const bad of ["abc", "-1", "1.5", "1234567890123456789"]) {
      const response = await admin.get(`/config/versions/${bad}`);
      expect(response.status, bad).toBe(400);
      expect(response.json.error).toMatchObject({ code: "invalid_path", issues: [{ path: "$.path.id" }] });
    }
    expect((await admin.post("/config/versions/abc/restore", {})).status).toBe(400);
    expect((await admin.post("/config/versions/424242/restore", {})).status).toBe(404);
  });

  it("the history pages newest first", async () => {
    const first = await admin.get("/config/versions?limit=2");
    expect(first.json.versions.map((v: { version: string }) => v.version)).toEqual(["3", "2"]);
    expect(first.json.nextCursor).toBe("2");
    const second = await admin.get(`/config/versions?limit=2&before=${first.json.nextCursor}`);
    expect(second.json).toMatchObject({
      versions: [{ version: "1", comment: "first hook" }],
      nextCursor: null,
    });
    const bad = await admin.get("/config/versions?before=x");
    expect(bad.status).toBe(400);
    expect(bad.json.error.issues[0].path).toBe("$.query.before");
  });
});

describe("restore", () => {
  it("a masked copy of an old version cannot bring back a secret the current config lost", async () => {
    const masked = (await admin.get("/config/versions/1")).json.config;
    const put = await admin.put("/config", masked, { "if-match": '"3"' });
    expect(put.status).toBe(422);
    expect(put.json.error.issues[0]).toMatchObject({ code: "masked_secret_unresolved" });
  });

  it("is refused with 409 when the config changed since it was read, and by a read key", async () => {
    const stale = await admin.post("/config/versions/1/restore", {});
    expect(stale.status).toBe(201); // no If-Match: restores unconditionally (version 4)
    const conflict = await fetch(`${app.baseUrl}/api/v1/routing/config/versions/2/restore`, {
      method: "POST",
      headers: { cookie: await adminCookie(app.baseUrl), "if-match": '"3"' },
    });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe("config_changed");
    const byKey = await readAs(readKey, "/config/versions/2/restore", { method: "POST" });
    expect(byKey.status).toBe(403);
    expect((await admin.get("/config/versions?limit=1")).json.versions[0].version).toBe("4");
  });

  it("saves the old config as a new version with its stored secret, which then signs deliveries", async () => {
    const response = await fetch(`${app.baseUrl}/api/v1/routing/config/versions/2/restore`, {
      method: "POST",
      headers: { cookie: await adminCookie(app.baseUrl), "if-match": '"4"' },
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ version: "5", isDefault: false });
    const restored = await admin.post("/config/versions/1/restore", {});
    expect(restored.json.version).toBe("6");
    expect(restored.text).not.toContain(FIRST_SECRET);
    const versions = (await admin.get("/config/versions?limit=3")).json.versions;
    expect(versions.map((v: { comment: string }) => v.comment)).toEqual([
      "Restore version 1",
      "Restore version 2",
      "Restore version 1",
    ]);
    const current = (await admin.get("/config")).json;
    expect(current.version).toBe("6");
    expect(current.config).toEqual((await admin.get("/config/versions/1")).json.config);

    const test = await admin.post("/test-notification", { channel: "tool-owner" });
    expect(test.status).toBe(202);
    await receiver.waitFor((all) => all.some((r) => r.path === "/hook/tool"), 10_000);
    const [got] = receiver.received("/hook/tool");
    expect(verifySignature(got?.body ?? "", got?.headers ?? {}, FIRST_SECRET, Date.now())).toEqual({
      ok: true,
    });
  });
});

describe("restore from CI", () => {
  it("an admin key restores like it applies (the config scope), and the version names the key", async () => {
    const before = (await admin.get("/config")).json.version as string;
    const response = await readAs(adminKey, "/config/versions/2/restore", {
      method: "POST",
      headers: { "if-match": `"${before}"` },
    });
    expect(response.status).toBe(201);
    const [newest] = (await admin.get("/config/versions?limit=1")).json.versions;
    expect(newest).toMatchObject({
      version: String(Number(before) + 1),
      createdBy: "key:ci-routing",
      comment: "Restore version 2",
    });
  });
});
