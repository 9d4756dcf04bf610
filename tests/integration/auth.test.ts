import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createKeyWithCli, type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";

// The dashboard's own sign-in: scrypt-hashed passwords, an HttpOnly session cookie, first-run setup exactly once.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("dashboard sessions", () => {
  let cookie = "";

  it("first-run setup creates the admin once and signs it in; a second setup → 409 already_set_up", async () => {
    const first = await post("/api/auth/setup", { username: "admin", password: "correct horse battery" });
    expect(first.status).toBe(200);
    const setCookie = first.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^receipt_session=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Lax/);
    const second = await post("/api/auth/setup", { username: "mallory", password: "another password" });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: "already_set_up" } });
  });

  it("a wrong password → 401 invalid_credentials; a short one → 422 with its path", async () => {
    const wrong = await post("/api/auth/sign-in", { username: "admin", password: "not the password" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: "invalid_credentials" } });
    const short = await post("/api/auth/sign-in", { username: "admin", password: "x" });
    expect(short.status).toBe(422);
    expect(await short.json()).toMatchObject({ error: { issues: [{ path: "$.password" }] } });
  });

  it("signing in sets a cookie that reads the API; signing out ends it", async () => {
    const response = await post("/api/auth/sign-in", {
      username: "admin",
      password: "correct horse battery",
    });
    expect(response.status).toBe(200);
    cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const chains = await fetch(`${app.baseUrl}/api/v1/chains`, { headers: { cookie } });
    expect(chains.status).toBe(200);
    expect((await fetch(`${app.baseUrl}/api/auth/me`, { headers: { cookie } })).status).toBe(200);
    await post("/api/auth/sign-out", {}, { cookie });
    expect((await fetch(`${app.baseUrl}/api/v1/chains`, { headers: { cookie } })).status).toBe(401);
  });

  it("a session cannot ingest (keys are for agents) → 403", async () => {
    const signedIn = await post("/api/auth/sign-in", {
      username: "admin",
      password: "correct horse battery",
    });
    const session = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const response = await post("/api/v1/records", { records: [] }, { cookie: session });
    expect(response.status).toBe(403);
  });

  it("without a key or a session the read API → 401", async () => {
    expect((await apiClient(app.baseUrl).get("/api/v1/stats")).status).toBe(401);
    const key = createKeyWithCli(db.url, "reader", ["read"]);
    expect((await apiClient(app.baseUrl, key).get("/api/v1/stats")).status).toBe(200);
  });

  it("the password is stored as an scrypt hash, never in clear", async () => {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query("select password_hash from users where username = 'admin'");
    await client.end();
    expect(rows[0]?.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(rows[0]?.password_hash).not.toContain("correct horse");
  });
});
