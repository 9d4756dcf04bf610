import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedInvite, InviteView, TeamMember } from "@/lib/dashboard/team-types";
import { createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTeamUser, signInCookie } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";
import { cookieOf, errorOf, sql, tokenOf, userApi } from "@/tests/support/users-api";

// The team (issue 23): list users, change roles, disable; invitations by one-time link, accepted once, atomically.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let admin: ReturnType<typeof userApi>;
let adminId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  admin = userApi(app.baseUrl, await adminCookie(app.baseUrl));
  const [row] = await sql<{ id: string }>(
    db.url,
    "select id::text as id from users where username = 'admin'",
  );
  adminId = row?.id ?? "";
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const enabledAdmins = async () =>
  (
    await sql<{ n: number }>(
      db.url,
      "select count(*)::int as n from users where role = 'admin' and disabled_at is null",
    )
  )[0]?.n;

async function invite(role = "responder", expiresInHours?: number): Promise<CreatedInvite> {
  const response = await admin.post("/api/v1/users/invites", { role, expiresInHours });
  expect(response.status).toBe(201);
  return (await response.json()) as CreatedInvite;
}

const accept = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  userApi(app.baseUrl, null).post(`/api/auth/invites/${token}/accept`, body, headers);

describe("the last enabled admin", () => {
  it("cannot be demoted (409 last_admin at $.role) nor disable themselves (409 cannot_disable_self)", async () => {
    expect(await errorOf(await admin.patch(`/api/v1/users/${adminId}`, { role: "viewer" }))).toEqual({
      status: 409,
      code: "last_admin",
      path: "$.role",
    });
    expect(await errorOf(await admin.patch(`/api/v1/users/${adminId}`, { disabled: true }))).toEqual({
      status: 409,
      code: "cannot_disable_self",
      path: "$.disabled",
    });
  });

  it("two concurrent demotions of the two admins: one wins, one enabled admin stays", async () => {
    const other = await createTeamUser(db.url, "second-admin", "admin");
    const otherApi = userApi(app.baseUrl, await signInCookie(app.baseUrl, other.username, other.password));
    const results = await Promise.all([
      admin.patch(`/api/v1/users/${other.id}`, { role: "viewer" }),
      otherApi.patch(`/api/v1/users/${adminId}`, { role: "responder" }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    // The loser either waited for the lock (409 last_admin) or was already demoted when it authenticated (403).
    expect([403, 409]).toContain(statuses[1]);
    expect(await enabledAdmins()).toBe(1);
    // Put the original admin back in charge and the second one as a viewer.
    await sql(db.url, "update users set role = 'admin' where id = $1", [adminId]);
    await sql(db.url, "update users set role = 'viewer' where id = $1", [other.id]);
  });
});

describe("GET /api/v1/users", () => {
  it("lists the team to any reader (users and read keys); filters by role; hides disabled users by default", async () => {
    const viewer = await createTeamUser(db.url, "list-viewer", "viewer");
    const gone = await createTeamUser(db.url, "list-disabled", "responder");
    await sql(db.url, "update users set disabled_at = now() where id = $1", [gone.id]);
    const asViewer = userApi(app.baseUrl, await signInCookie(app.baseUrl, viewer.username, viewer.password));
    const { users } = (await (await asViewer.get("/api/v1/users")).json()) as { users: TeamMember[] };
    expect(users.find((u) => u.username === "admin")).toMatchObject({ role: "admin", disabled: false });
    expect(users.find((u) => u.username === "admin")?.lastSeenAt).not.toBeNull();
    expect(users.find((u) => u.username === "list-viewer")).toMatchObject({
      id: viewer.id,
      lastSeenAt: expect.any(String),
    });
    expect(users.map((u) => u.username)).not.toContain("list-disabled");
    expect(JSON.stringify(users)).not.toMatch(/password|scrypt|token/i);
    const all = (await (await admin.get("/api/v1/users?include=disabled")).json()) as { users: TeamMember[] };
    expect(all.users.find((u) => u.username === "list-disabled")).toMatchObject({
      disabled: true,
      lastSeenAt: null,
    });
    const admins = (await (await admin.get("/api/v1/users?role=admin")).json()) as { users: TeamMember[] };
    expect(admins.users.map((u) => u.role)).toEqual(["admin"]);
    const key = await createTestKey(db.url, "team-reader", ["read"]);
    const byKey = await fetch(`${app.baseUrl}/api/v1/users`, { headers: { authorization: `Bearer ${key}` } });
    expect(byKey.status).toBe(200);
    expect((await fetch(`${app.baseUrl}/api/v1/users`)).status).toBe(401);
  });

  it.each([
    ["?role=owner", "$.query.role"],
    ["?include=everyone", "$.query.include"],
  ])("%s → 400 invalid_query at %s", async (query, path) => {
    expect(await errorOf(await admin.get(`/api/v1/users${query}`))).toMatchObject({ status: 400, path });
  });
});

describe("invitations", () => {
  let created: CreatedInvite;

  it("an admin invites: 201, no-store, the link holds a token the list never shows", async () => {
    const response = await admin.post("/api/v1/users/invites", { role: "responder" });
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    created = (await response.json()) as CreatedInvite;
    expect(created.link).toMatch(/^\/join\?token=[\w-]{43}$/);
    expect(created.invite).toMatchObject({ role: "responder", status: "pending", createdBy: "admin" });
    const hours = (Date.parse(created.invite.expiresAt) - Date.parse(created.invite.createdAt)) / 3600_000;
    expect(hours).toBeCloseTo(72, 1);
    const listing = await (await admin.get("/api/v1/users/invites")).text();
    expect(listing).not.toContain(tokenOf(created.link));
    expect(JSON.parse(listing).invites[0]).toMatchObject({ id: created.invite.id, status: "pending" });
  });

  it.each([
    [{ role: "owner" }, "$.role"],
    [{}, "$.role"],
    [{ role: "viewer", expiresInHours: 0 }, "$.expiresInHours"],
    [{ role: "viewer", expiresInHours: 169 }, "$.expiresInHours"],
    [{ role: "viewer", expiresInHours: 1.5 }, "$.expiresInHours"],
    [{ role: "viewer", email: "x@example.com" }, "$"],
  ])("invite %j → 422 invalid_body at %s", async (body, path) => {
    expect(await errorOf(await admin.post("/api/v1/users/invites", body))).toEqual({
      status: 422,
      code: "invalid_body",
      path,
    });
  });

  it("only admins invite: a responder → 403 insufficient_role, a key → 403, nobody → 401", async () => {
    const responder = await createTeamUser(db.url, "inv-responder", "responder");
    const api = userApi(app.baseUrl, await signInCookie(app.baseUrl, responder.username, responder.password));
    expect(await errorOf(await api.post("/api/v1/users/invites", { role: "admin" }))).toMatchObject({
      status: 403,
      code: "insufficient_role",
    });
    expect((await api.get("/api/v1/users/invites")).status).toBe(403);
    const key = await createTestKey(db.url, "inv-admin-key", ["admin"]);
    const byKey = await fetch(`${app.baseUrl}/api/v1/users/invites`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(byKey.status).toBe(403);
    expect((await userApi(app.baseUrl, null).get("/api/v1/users/invites")).status).toBe(401);
  });

  it("the public lookup tells the role and expiry; an unknown token → 404 invite_not_found", async () => {
    const lookup = await fetch(`${app.baseUrl}/api/auth/invites/${tokenOf(created.link)}`);
    expect(lookup.status).toBe(200);
    expect(await lookup.json()).toEqual({ role: "responder", expiresAt: created.invite.expiresAt });
    for (const token of ["A".repeat(43), "short", "%00"]) {
      const response = await fetch(`${app.baseUrl}/api/auth/invites/${token}`);
      expect(response.status, token).toBe(token === "%00" ? 400 : 404);
      if (token !== "%00") expect((await errorOf(response)).code).toBe("invite_not_found");
    }
  });

  it.each([
    [{ username: "a b", password: "long enough" }, 422, "invalid_body", "$.username"],
    [{ username: "newbie", password: "short" }, 422, "invalid_body", "$.password"],
    [{ username: "newbie" }, 422, "invalid_body", "$.password"],
    [
      { username: "newbie", password: "long enough", displayName: "x".repeat(129) },
      422,
      "invalid_body",
      "$.displayName",
    ],
    [{ username: "newbie", password: "long enough", role: "admin" }, 422, "invalid_body", "$"],
    [{ username: "admin", password: "long enough" }, 409, "username_taken", "$.username"],
    [{ username: "ADMIN", password: "long enough" }, 409, "username_taken", "$.username"],
  ])("accept %j → %i %s at %s, and the invitation stays pending", async (body, status, code, path) => {
    expect(await errorOf(await accept(tokenOf(created.link), body))).toEqual({ status, code, path });
    const lookup = await fetch(`${app.baseUrl}/api/auth/invites/${tokenOf(created.link)}`);
    expect(lookup.status).toBe(200);
  });

  it("accept is JSON-only (415) and same-origin only (403 forbidden_origin)", async () => {
    const token = tokenOf(created.link);
    const form = await fetch(`${app.baseUrl}/api/auth/invites/${token}/accept`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=x&password=long+enough",
    });
    expect(form.status).toBe(415);
    const foreign = await accept(
      token,
      { username: "foreign", password: "long enough" },
      { origin: "https://evil.example" },
    );
    expect(await errorOf(foreign)).toMatchObject({ status: 403, code: "forbidden_origin" });
  });

  it("accepting creates the user with the invited role, signs them in, and uses up the link", async () => {
    const token = tokenOf(created.link);
    const response = await accept(token, {
      username: "newbie",
      password: "newbie password",
      displayName: " New Bie ",
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ user: { username: "newbie", role: "responder" } });
    const me = await fetch(`${app.baseUrl}/api/auth/me`, { headers: { cookie: cookieOf(response) } });
    expect(await me.json()).toEqual({ user: { username: "newbie", role: "responder" } });
    const [session] = await sql<{ method: string }>(
      db.url,
      "select s.method from user_sessions s join users u on u.id = s.user_id where u.username = 'newbie'",
    );
    expect(session?.method).toBe("invite");
    const { users } = (await (await admin.get("/api/v1/users")).json()) as { users: TeamMember[] };
    expect(users.find((u) => u.username === "newbie")).toMatchObject({
      displayName: "New Bie",
      role: "responder",
    });
    expect(await errorOf(await fetch(`${app.baseUrl}/api/auth/invites/${token}`))).toMatchObject({
      status: 410,
      code: "invite_used",
    });
    expect(await errorOf(await accept(token, { username: "again", password: "long enough" }))).toMatchObject({
      status: 409,
      code: "invite_used",
    });
    const { invites } = (await (await admin.get("/api/v1/users/invites")).json()) as {
      invites: InviteView[];
    };
    expect(invites.find((i) => i.id === created.invite.id)).toMatchObject({
      status: "used",
      usedAt: expect.any(String),
    });
  });

  it("the same link accepted five times at once makes one user; the others get 409", async () => {
    const token = tokenOf((await invite("viewer")).link);
    const names = [1, 2, 3, 4, 5].map((n) => `racer-${n}`);
    const results = await Promise.all(
      names.map((username) => accept(token, { username, password: "racing password" })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    const rows = await sql(db.url, "select 1 from users where username like 'racer-%'");
    expect(rows).toHaveLength(1);
  });

  it("a revoked link → 410 invite_revoked; revoking again or an unknown id → 404", async () => {
    const revokable = await invite("admin");
    const response = await admin.del(`/api/v1/users/invites/${revokable.invite.id}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { invite: InviteView }).invite.status).toBe("revoked");
    const lookup = await fetch(`${app.baseUrl}/api/auth/invites/${tokenOf(revokable.link)}`);
    expect(await errorOf(lookup)).toMatchObject({ status: 410, code: "invite_revoked" });
    expect(
      await errorOf(await accept(tokenOf(revokable.link), { username: "late", password: "long enough" })),
    ).toMatchObject({
      status: 410,
      code: "invite_revoked",
    });
    expect((await admin.del(`/api/v1/users/invites/${revokable.invite.id}`)).status).toBe(404);
    expect((await admin.del("/api/v1/users/invites/not-a-uuid")).status).toBe(404);
  });

  it("an expired link → 410 invite_expired, listed as expired", async () => {
    const expiring = await invite("viewer", 1);
    await sql(db.url, "update user_invites set expires_at = now() - interval '1 second' where id = $1", [
      expiring.invite.id,
    ]);
    expect(
      await errorOf(await fetch(`${app.baseUrl}/api/auth/invites/${tokenOf(expiring.link)}`)),
    ).toMatchObject({
      status: 410,
      code: "invite_expired",
    });
    const { invites } = (await (await admin.get("/api/v1/users/invites")).json()) as {
      invites: InviteView[];
    };
    expect(invites.find((i) => i.id === expiring.invite.id)?.status).toBe("expired");
  });
});
