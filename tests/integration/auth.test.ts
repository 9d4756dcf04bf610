import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";

// The dashboard's own sign-in: scrypt-hashed passwords, an HttpOnly session cookie, first-run setup exactly once;
// JSON only, from this site only, sign-out by POST.
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

const PASSWORD = "correct horse battery";

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${app.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

async function signedInCookie(): Promise<string> {
  const response = await post("/api/auth/sign-in", { username: "admin", password: PASSWORD });
  expect(response.status).toBe(200);
  return (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

describe("dashboard sessions", () => {
  it("first-run setup creates the admin once and signs it in; a second setup → 409 already_set_up", async () => {
    const first = await post("/api/auth/setup", { username: "admin", password: PASSWORD });
    expect(first.status).toBe(200);
    const setCookie = first.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^receipt_session=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Lax/);
    // The admin's browser is a known device of the account (the sign-in throttle: docs/ARCHITECTURE.md).
    expect(first.headers.getSetCookie()[1]).toMatch(
      /^receipt_device=[\w-]+\.[\w-]+; Path=\/api; HttpOnly; SameSite=Strict;/,
    );
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
    expect(await short.json()).toMatchObject({
      error: { code: "invalid_credentials_format", issues: [{ path: "$.password" }] },
    });
    const notAnObject = await post("/api/auth/sign-in", ["admin", PASSWORD]);
    expect(notAnObject.status).toBe(422);
    expect(await notAnObject.json()).toMatchObject({
      error: { code: "invalid_credentials_format", issues: [{ path: "$" }] },
    });
  });

  it("signing in sets a cookie that reads the API; signing out (POST) ends it", async () => {
    const cookie = await signedInCookie();
    expect((await fetch(`${app.baseUrl}/api/v1/chains`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${app.baseUrl}/api/auth/me`, { headers: { cookie } })).status).toBe(200);
    const signOut = await post("/api/auth/sign-out", {}, { cookie, origin: app.baseUrl });
    expect(signOut.status).toBe(200);
    expect(signOut.headers.get("set-cookie")).toMatch(/^receipt_session=; .*Max-Age=0/);
    expect((await fetch(`${app.baseUrl}/api/v1/chains`, { headers: { cookie } })).status).toBe(401);
  });

  it("a session cannot ingest (keys are for agents) → 403", async () => {
    const response = await post("/api/v1/records", { records: [] }, { cookie: await signedInCookie() });
    expect(response.status).toBe(403);
  });

  it("without a key or a session the read API → 401", async () => {
    expect((await apiClient(app.baseUrl).get("/api/v1/stats")).status).toBe(401);
    const key = await createTestKey(db.url, "reader", ["read"]);
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

describe("sign-out, sign-in and setup take POST only", () => {
  it.each(["/api/auth/sign-out", "/api/auth/sign-in", "/api/auth/setup"])(
    "GET, PUT and DELETE %s → 405 method_not_allowed with Allow: POST",
    async (path) => {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const response = await fetch(`${app.baseUrl}${path}`, { method });
        expect(response.status).toBe(405);
        expect(response.headers.get("allow")).toBe("POST");
        expect(await response.json()).toEqual({
          error: { code: "method_not_allowed", message: "this endpoint takes POST only" },
        });
      }
    },
  );

  it("a GET of the sign-out URL (a link, an <img>) leaves the session alive", async () => {
    const cookie = await signedInCookie();
    expect((await fetch(`${app.baseUrl}/api/auth/sign-out`, { headers: { cookie } })).status).toBe(405);
    expect((await fetch(`${app.baseUrl}/api/auth/me`, { headers: { cookie } })).status).toBe(200);
  });
});

describe("sign-in and setup take application/json only", () => {
  const forms: [string, string, string][] = [
    [
      "urlencoded",
      "application/x-www-form-urlencoded",
      `username=admin&password=${encodeURIComponent(PASSWORD)}`,
    ],
    [
      "multipart",
      "multipart/form-data; boundary=x",
      `--x\r\nContent-Disposition: form-data; name="username"\r\n\r\nadmin\r\n--x--\r\n`,
    ],
    ["text/plain holding JSON", "text/plain", JSON.stringify({ username: "admin", password: PASSWORD })],
    ["no content type", "", JSON.stringify({ username: "admin", password: PASSWORD })],
  ];
  for (const path of ["/api/auth/sign-in", "/api/auth/setup"]) {
    it.each(forms)(`${path} with %s → 415 unsupported_media_type`, async (_name, contentType, body) => {
      const response = await fetch(`${app.baseUrl}${path}`, {
        method: "POST",
        headers: contentType ? { "content-type": contentType } : {},
        body: new TextEncoder().encode(body),
      });
      expect(response.status).toBe(415);
      expect(await response.json()).toMatchObject({
        error: { code: "unsupported_media_type", issues: [{ path: '$.headers["content-type"]' }] },
      });
      expect(response.headers.get("set-cookie")).toBeNull();
    });
  }

  it("a body over 4 KiB → 413 payload_too_large; a body that is not JSON → 400 invalid_json", async () => {
    const big = await post("/api/auth/sign-in", {
      username: "admin",
      password: PASSWORD,
      pad: "x".repeat(5000),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { code: "payload_too_large", issues: [{ path: "$" }] } });
    const broken = await fetch(`${app.baseUrl}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"username":"admin",',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: "invalid_json", issues: [{ path: "$" }] } });
  });
});

describe("cookie-authenticated writes and the auth endpoints refuse other origins", () => {
  const badOrigins: [string, (base: string) => string][] = [
    ["null (sandboxed frame, file: page)", () => "null"],
    ["empty", () => ""],
    ["not a URL", () => "not a url"],
    ["another site", () => "https://evil.example"],
    ["another port of this host", (base) => base.replace(/:\d+$/, ":1")],
    ["this origin with a path", (base) => `${base}/chains`],
    ["this origin with a trailing slash", (base) => `${base}/`],
    ["this origin with credentials", (base) => base.replace("http://", "http://user:pw@")],
    ["two origins in one header", (base) => `https://evil.example, ${base}`],
    ["a javascript: URL", () => "javascript:alert(1)"],
    ["a file: URL", () => "file:///etc/passwd"],
    ["upper-case scheme (no browser sends it)", (base) => base.replace("http://", "HTTP://")],
  ];

  const refusedWithOrigin = async (response: Response) => {
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: {
        code: "forbidden_origin",
        message: "cross-origin request refused",
        issues: [{ path: "$.headers.origin", code: "forbidden_origin", message: expect.any(String) }],
      },
    });
  };

  it.each(badOrigins)("Origin: %s → 403 forbidden_origin on every dashboard write", async (_name, origin) => {
    const cookie = await signedInCookie();
    const headers = { cookie, origin: origin(app.baseUrl), "content-type": "application/json" };
    const writes: [string, string, unknown][] = [
      ["POST", "/api/v1/keys", { name: "from-elsewhere", scopes: ["ingest"] }],
      ["DELETE", "/api/v1/keys/reader", undefined],
      ["POST", "/api/v1/chains/chain%3Ax/triage", { action: "acknowledge", queue: "false_success" }],
      ["POST", "/api/v1/chains/chain%3Ax/reconcile", {}],
      ["PUT", "/api/v1/routing/config", {}],
      ["POST", "/api/v1/routing/silences", {}],
      ["POST", "/api/auth/sign-out", {}],
    ];
    for (const [method, path, body] of writes) {
      const response = await fetch(`${app.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await refusedWithOrigin(response);
    }
    // Nothing was written: no key was made, the refused sign-out left the session alive.
    expect((await fetch(`${app.baseUrl}/api/auth/me`, { headers: { cookie } })).status).toBe(200);
    const keys = (await (await fetch(`${app.baseUrl}/api/v1/keys`, { headers: { cookie } })).json()) as {
      keys: { name: string }[];
    };
    expect(keys.keys.map((key) => key.name)).not.toContain("from-elsewhere");
  });

  it.each(badOrigins)(
    "Origin: %s → 403 forbidden_origin on sign-in and setup, no cookie set",
    async (_name, origin) => {
      for (const path of ["/api/auth/sign-in", "/api/auth/setup"]) {
        const response = await post(
          path,
          { username: "admin", password: PASSWORD },
          { origin: origin(app.baseUrl) },
        );
        expect(response.headers.get("set-cookie")).toBeNull();
        await refusedWithOrigin(response);
      }
    },
  );

  it.each(["cross-site", "same-site"])(
    'Sec-Fetch-Site: %s → 403 forbidden_origin at $.headers["sec-fetch-site"]',
    async (site) => {
      const cookie = await signedInCookie();
      for (const [path, headers] of [
        ["/api/v1/keys", { cookie }],
        ["/api/auth/sign-out", { cookie }],
        ["/api/auth/sign-in", {}],
      ] as const) {
        const response = await post(
          path,
          { username: "admin", password: PASSWORD, name: "x" },
          {
            ...headers,
            "sec-fetch-site": site,
          },
        );
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({
          error: { code: "forbidden_origin", issues: [{ path: '$.headers["sec-fetch-site"]' }] },
        });
      }
    },
  );

  it("this site's own origin, same-origin fetch metadata, or no Origin at all (not a browser) is served", async () => {
    const cookie = await signedInCookie();
    const own = { cookie, origin: app.baseUrl, "sec-fetch-site": "same-origin" };
    const created = await post("/api/v1/keys", { name: "from-here", scopes: ["ingest"] }, own);
    expect(created.status).toBe(201);
    const deleted = await fetch(`${app.baseUrl}/api/v1/keys/from-here`, { method: "DELETE", headers: own });
    expect(deleted.status).toBe(200);
    const signIn = await post(
      "/api/auth/sign-in",
      { username: "admin", password: PASSWORD },
      { origin: app.baseUrl },
    );
    expect(signIn.status).toBe(200);
    const noOrigin = await post("/api/v1/keys", { name: "from-curl", scopes: ["ingest"] }, { cookie });
    expect(noOrigin.status).toBe(201);
  });

  it("an ingestion key is no ambient credential: Origin is not checked for it", async () => {
    const key = await createTestKey(db.url, "agent", ["ingest"]);
    const response = await post(
      "/api/v1/records",
      { records: [] },
      { authorization: `Bearer ${key}`, origin: "null" },
    );
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_batch" } });
  });
});
