import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedKey, KeySummary } from "@/lib/dashboard/api-types";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { liveCase } from "@/tests/support/dashboard-records";
import { adminCookie, dashboardClient } from "@/tests/support/dashboard-session";
import { createTestDatabase } from "@/tests/support/test-database";

// Settings → Ingestion keys: create (the key is shown once), list (never the key), revoke (its next POST fails).
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ui: ReturnType<typeof dashboardClient>;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  ui = dashboardClient(app.baseUrl, await adminCookie(app.baseUrl));
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

describe("ingestion keys from the dashboard", () => {
  let created: CreatedKey;

  it("creates a key, answers it once (201, no-store), and lists only its prefix", async () => {
    const response = await ui.post("/api/v1/keys", { name: "billing-agent", scopes: ["ingest"] });
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    created = (await response.json()) as CreatedKey;
    expect(created.key).toMatch(/^rcpt_/);
    expect(created.summary).toMatchObject({ name: "billing-agent", scopes: ["ingest"], revokedAt: null });
    const listing = await ui.get("/api/v1/keys");
    const text = await listing.text();
    expect(text).not.toContain(created.key);
    const { keys } = JSON.parse(text) as { keys: KeySummary[] };
    expect(keys.map((key) => key.name)).toEqual(["billing-agent"]);
    expect(created.key.startsWith(keys[0]?.prefix ?? "?")).toBe(true);
  });

  it.each([
    ["a name with spaces", { name: "my key" }, "$.name"],
    ["an unknown scope", { name: "x", scopes: ["superuser"] }, "$.scopes[0]"],
    ["no scope at all", { name: "x", scopes: [] }, "$.scopes"],
    ["an unknown field", { name: "x", expires: "never" }, "$"],
  ])("%s → 422 invalid_body at %s", async (_, body, path) => {
    const response = await ui.post("/api/v1/keys", body);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_body", issues: [{ path }] } });
  });

  it("a name already used → 409 key_name_taken at $.name", async () => {
    const response = await ui.post("/api/v1/keys", { name: "billing-agent" });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      error: { code: "key_name_taken", issues: [{ path: "$.name" }] },
    });
  });

  it("revoking a key makes its next POST fail with 401, and the list shows it revoked", async () => {
    const agent = apiClient(app.baseUrl, created.key);
    expect((await agent.post([liveCase("keys", "healthy")])).status).toBe(200);
    expect((await ui.del("/api/v1/keys/billing-agent")).status).toBe(200);
    expect((await agent.post([liveCase("keys", "tool_failed")])).status).toBe(401);
    const { keys } = (await (await ui.get("/api/v1/keys")).json()) as { keys: KeySummary[] };
    expect(keys[0]?.revokedAt).not.toBeNull();
    expect(keys[0]?.lastUsedAt).not.toBeNull();
  });

  it("revoking an unknown or already revoked key → 404", async () => {
    expect((await ui.del("/api/v1/keys/billing-agent")).status).toBe(404);
    expect((await ui.del("/api/v1/keys/nobody")).status).toBe(404);
  });

  it("keys are managed by people only: an ingestion key → 403, nobody → 401", async () => {
    const key = await createTestKey(db.url, "reader", ["ingest", "read"]);
    expect((await apiClient(app.baseUrl, key).get("/api/v1/keys")).status).toBe(403);
    expect((await fetch(`${app.baseUrl}/api/v1/keys`)).status).toBe(401);
  });
});
