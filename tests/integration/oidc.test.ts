import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { type RunningApp, startApp } from "@/tests/support/app-server";
import { signInThroughProvider } from "@/tests/support/oidc-fetch-flow";
import { startTestProvider, type TestProvider } from "@/tests/support/oidc-provider";
import { createTeamUser } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// OpenID Connect sign-in against a real provider (oidc-provider) on 127.0.0.1, driven with fetch as a browser would:
// first sign-in creates the user with the claimed role, later ones keep the role an admin set, every failure ends
// on /sign-in with a code and writes nothing.
const CLIENT_ID = "receipt-it";
const CLIENT_SECRET = "receipt-it-secret-0123456789abcdef";
const TIMEOUT_MS = 1500;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let sql: pg.Client;
let providerPort: number;
let provider: TestProvider | undefined;

const unique = () => randomBytes(4).toString("hex");

beforeAll(async () => {
  db = await createTestDatabase();
  // A password admin first: until one exists, every sign-in goes to /setup.
  await createTeamUser(db.url, "admin", "admin");
  providerPort = await portOutsideEphemeralRange();
  app = await startApp(db.url, {
    RECEIPT_OIDC_ISSUER: `http://127.0.0.1:${providerPort}`,
    RECEIPT_OIDC_CLIENT_ID: CLIENT_ID,
    RECEIPT_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    RECEIPT_OIDC_NAME: "Test IdP",
    RECEIPT_OIDC_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});
afterAll(async () => {
  await provider?.stop();
  await sql?.end();
  await app?.stop();
  await db?.drop();
});

async function startProvider(): Promise<TestProvider> {
  provider = await startTestProvider({
    port: providerPort,
    redirectUri: `${app.baseUrl}/api/auth/oidc/callback`,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
  });
  return provider;
}

const startRedirect = async () => {
  const response = await fetch(`${app.baseUrl}/api/auth/oidc/start?next=/chains`, { redirect: "manual" });
  return { status: response.status, location: response.headers.get("location") ?? "" };
};

const userRow = async (subject: string) =>
  (
    await sql.query(
      `select id, username, role, display_name, email, oidc_issuer, password_hash from users where oidc_subject = $1`,
      [subject],
    )
  ).rows[0];

const count = async (query: string, values: unknown[] = []) =>
  Number((await sql.query(`select count(*)::int as n from (${query}) q`, values)).rows[0].n);

const me = async (cookie: string | null) =>
  (await fetch(`${app.baseUrl}/api/auth/me`, { headers: { cookie: cookie ?? "" } })).json();

describe("OpenID Connect: a provider that is not there", () => {
  it("one that accepts connections but never answers → /sign-in?error=oidc_unavailable within the timeout", async () => {
    const held = new Set<net.Socket>();
    const silent = net.createServer((socket) => held.add(socket)); // holds every connection open, answers nothing
    await new Promise<void>((resolve) => silent.listen(providerPort, "127.0.0.1", resolve));
    try {
      const started = Date.now();
      const { status, location } = await startRedirect();
      expect(status).toBe(302);
      expect(location).toBe("/sign-in?error=oidc_unavailable&next=%2Fchains");
      expect(held.size).toBeGreaterThan(0);
      // Ended by RECEIPT_OIDC_TIMEOUT_MS, not by a quick refusal, and not left hanging.
      expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 5000);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("one that refuses connections → the same, and the sign-in page explains it next to the password form", async () => {
    expect((await startRedirect()).location).toBe("/sign-in?error=oidc_unavailable&next=%2Fchains");
    const page = await (await fetch(`${app.baseUrl}/sign-in?error=oidc_unavailable`)).text();
    expect(page).toContain("The sign-in provider could not be reached");
    expect(page).toContain("Sign in with <!-- -->Test IdP");
    expect(page).toContain('id="password"');
  });
});

describe("OpenID Connect: signing in", () => {
  beforeAll(startProvider);

  it("a first sign-in creates the user with the claimed role, audited, and lands on `next` signed in", async () => {
    const login = `alice-${unique()}`;
    provider?.accounts.set(login, {
      preferred_username: login,
      name: "Alice Example",
      email: `${login}@example.test`,
      receipt_role: "responder",
    });
    const result = await signInThroughProvider(app.baseUrl, login, { next: "/chains?state=failing" });
    expect(result.landedOn).toBe("/chains?state=failing");
    expect(await me(result.sessionCookie)).toEqual({ user: { username: login, role: "responder" } });
    const user = await userRow(login);
    expect(user).toMatchObject({
      username: login,
      role: "responder",
      display_name: "Alice Example",
      email: `${login}@example.test`,
      oidc_issuer: `http://127.0.0.1:${providerPort}`,
      password_hash: null,
    });
    const audit = await sql.query(
      `select actor_user_id, actor, target_type, target_id, after from audit_events where action = 'user.oidc_create' and target_id = $1`,
      [user.id],
    );
    expect(audit.rows).toEqual([
      expect.objectContaining({
        actor_user_id: user.id,
        actor: login,
        target_type: "user",
        target_id: user.id,
      }),
    ]);
    expect(audit.rows[0].after).toMatchObject({ username: login, role: "responder" });
    expect(await count("select 1 from user_sessions where user_id = $1 and method = 'oidc'", [user.id])).toBe(
      1,
    );
  });

  it("an unknown or missing role claim → viewer; a name already taken gets a suffix, the password user untouched", async () => {
    const unknownRole = `bob-${unique()}`;
    provider?.accounts.set(unknownRole, { preferred_username: unknownRole, receipt_role: "superuser" });
    const bob = await signInThroughProvider(app.baseUrl, unknownRole);
    expect(bob.landedOn).toBe("/");
    expect(await me(bob.sessionCookie)).toEqual({ user: { username: unknownRole, role: "viewer" } });

    const claimsAdmin = `mallory-${unique()}`;
    provider?.accounts.set(claimsAdmin, { preferred_username: "admin", email: "Mallory@example.test" });
    const mallory = await signInThroughProvider(app.baseUrl, claimsAdmin);
    expect(await me(mallory.sessionCookie)).toEqual({ user: { username: "admin-2", role: "viewer" } });
    const admin = await sql.query("select role, oidc_subject from users where username = 'admin'");
    expect(admin.rows).toEqual([{ role: "admin", oidc_subject: null }]);
  });

  it("a later sign-in keeps the role an admin set since (not the claim's) and refreshes name and email", async () => {
    const login = `carol-${unique()}`;
    provider?.accounts.set(login, { preferred_username: login, name: "Carol", receipt_role: "responder" });
    await signInThroughProvider(app.baseUrl, login);
    await sql.query("update users set role = 'admin' where oidc_subject = $1", [login]);
    provider?.accounts.set(login, {
      preferred_username: login,
      name: "Carol Renamed",
      email: "carol@example.test",
      receipt_role: "viewer",
    });
    const again = await signInThroughProvider(app.baseUrl, login);
    expect(await me(again.sessionCookie)).toEqual({ user: { username: login, role: "admin" } });
    expect(await userRow(login)).toMatchObject({
      display_name: "Carol Renamed",
      email: "carol@example.test",
    });
    expect(await count("select 1 from users where oidc_subject = $1", [login])).toBe(1);
    expect(
      await count("select 1 from audit_events where action = 'user.oidc_create' and actor = $1", [login]),
    ).toBe(1);
  });

  it("a disabled user is refused: /sign-in?error=oidc_user_disabled, no session, nothing refreshed", async () => {
    const login = `dave-${unique()}`;
    provider?.accounts.set(login, { preferred_username: login, name: "Dave" });
    await signInThroughProvider(app.baseUrl, login);
    await sql.query("update users set disabled_at = now() where oidc_subject = $1", [login]);
    provider?.accounts.set(login, { preferred_username: login, name: "Dave Again" });
    const sessionsBefore = await count("select 1 from user_sessions");
    const refused = await signInThroughProvider(app.baseUrl, login, { next: "/alerts" });
    expect(refused).toEqual({
      landedOn: "/sign-in?error=oidc_user_disabled&next=%2Falerts",
      sessionCookie: null,
    });
    expect(await count("select 1 from user_sessions")).toBe(sessionsBefore);
    expect((await userRow(login)).display_name).toBe("Dave");
    const page = await (await fetch(`${app.baseUrl}/sign-in?error=oidc_user_disabled`)).text();
    expect(page).toContain("This account is disabled");
  });

  it("a tampered state or a lost flow cookie ends on /sign-in with its code and creates nobody", async () => {
    const login = `erin-${unique()}`;
    provider?.accounts.set(login, { preferred_username: login, receipt_role: "admin" });
    const tampered = await signInThroughProvider(app.baseUrl, login, {
      alterCallback: (url) => url.searchParams.set("state", "forged-state"),
    });
    expect(tampered).toEqual({ landedOn: "/sign-in?error=oidc_state_mismatch", sessionCookie: null });
    const lost = await signInThroughProvider(app.baseUrl, login, {
      alterCallback: (_url, jar) => jar.delete(app.baseUrl, "receipt_oidc_flow"),
    });
    expect(lost).toEqual({ landedOn: "/sign-in?error=oidc_expired", sessionCookie: null });
    const forged = await signInThroughProvider(app.baseUrl, login, {
      alterCallback: (_url, jar) => {
        const [payload = "", signature = ""] = (jar.get(app.baseUrl, "receipt_oidc_flow") ?? "").split(".");
        jar.set(app.baseUrl, "receipt_oidc_flow", `${payload}.${signature.slice(1)}A`);
      },
    });
    expect(forged.landedOn).toBe("/sign-in?error=oidc_expired");
    expect(await userRow(login)).toBeUndefined();
  });

  it("an error from the provider (the person said no) → oidc_denied; an unknown code on /sign-in shows nothing", async () => {
    const response = await fetch(`${app.baseUrl}/api/auth/oidc/callback?error=access_denied&state=x`, {
      redirect: "manual",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/sign-in?error=oidc_denied");
    const page = await (await fetch(`${app.baseUrl}/sign-in?error=%3Cscript%3E`)).text();
    expect(page).not.toContain('role="alert"');
  });

  it("a code replayed at the callback is refused by the provider → oidc_rejected, no second session", async () => {
    const login = `frank-${unique()}`;
    provider?.accounts.set(login, { preferred_username: login });
    let callback = "";
    let flowCookie = "";
    await signInThroughProvider(app.baseUrl, login, {
      alterCallback: (url, jar) => {
        callback = url.href;
        flowCookie = jar.get(app.baseUrl, "receipt_oidc_flow") ?? "";
      },
    });
    const sessionsBefore = await count("select 1 from user_sessions");
    const replay = await fetch(callback, {
      redirect: "manual",
      headers: { cookie: `receipt_oidc_flow=${flowCookie}` },
    });
    expect(replay.headers.get("location")).toBe("/sign-in?error=oidc_rejected");
    expect(await count("select 1 from user_sessions")).toBe(sessionsBefore);
  });
});

describe("OpenID Connect: settings", () => {
  it("an issuer without a client id and secret stops the start with a message naming them", () => {
    const root = path.resolve(import.meta.dirname, "../..");
    const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/serve.ts", "start"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.url, RECEIPT_OIDC_ISSUER: "https://id.example.test" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "RECEIPT_OIDC_CLIENT_ID: OpenID Connect sign-in needs RECEIPT_OIDC_ISSUER, RECEIPT_OIDC_CLIENT_ID, RECEIPT_OIDC_CLIENT_SECRET together",
    );
    expect(result.stderr).toContain("RECEIPT_OIDC_CLIENT_SECRET:");
  });
});
