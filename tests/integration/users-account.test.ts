import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OwnSession, TeamMember } from "@/lib/dashboard/team-types";
import { createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { createTeamUser, signInCookie, type TeamUser } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";
import { errorOf, sql, userApi } from "@/tests/support/users-api";

// What an admin changes about a user (role, disabled, display name) and what each user changes about themselves
// (password, sessions): each applies on the very next request, each is audited.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let admin: ReturnType<typeof userApi>;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  admin = userApi(app.baseUrl, await adminCookie(app.baseUrl));
});
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const as = async (user: TeamUser, password = user.password) =>
  userApi(app.baseUrl, await signInCookie(app.baseUrl, user.username, password));

const auditActions = async (targetId: string) =>
  (
    await sql<{ action: string }>(
      db.url,
      "select action from audit_events where target_id = $1 order by id",
      [targetId],
    )
  ).map((row) => row.action);

describe("PATCH /api/v1/users/{id}", () => {
  it("a demoted admin's next request is 403 insufficient_role; the change is audited with before and after", async () => {
    const demoted = await createTeamUser(db.url, "was-admin", "admin");
    const api = await as(demoted);
    expect((await api.get("/api/v1/keys")).status).toBe(200);
    const response = await admin.patch(`/api/v1/users/${demoted.id}`, {
      role: "viewer",
      displayName: "Former Admin",
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { user: TeamMember }).user).toMatchObject({
      role: "viewer",
      displayName: "Former Admin",
      lastSeenAt: expect.any(String),
    });
    expect(await errorOf(await api.get("/api/v1/keys"))).toMatchObject({
      status: 403,
      code: "insufficient_role",
    });
    expect((await api.get("/api/v1/users")).status).toBe(200);
    const [event] = await sql<{ actor: string; before: unknown; after: unknown }>(
      db.url,
      "select actor, before, after from audit_events where action = 'user.role_change' and target_id = $1",
      [demoted.id],
    );
    expect(event).toEqual({
      actor: "admin",
      before: { username: "was-admin", role: "admin" },
      after: { username: "was-admin", role: "viewer" },
    });
    expect(await auditActions(demoted.id)).toEqual(["user.role_change", "user.profile_change"]);
  });

  it("disabling ends every session at once (next request 401, sign-in refused); enabling lets them back", async () => {
    const user = await createTeamUser(db.url, "to-disable", "responder");
    const [first, second] = [await as(user), await as(user)];
    const response = await admin.patch(`/api/v1/users/${user.id}`, { disabled: true });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ user: { disabled: true }, sessionsEnded: 2 });
    expect((await first.get("/api/v1/users")).status).toBe(401);
    expect((await second.get("/api/v1/me/sessions")).status).toBe(401);
    await expect(signInCookie(app.baseUrl, user.username, user.password)).rejects.toThrow(/401/);
    expect((await admin.patch(`/api/v1/users/${user.id}`, { disabled: false })).status).toBe(200);
    expect((await (await as(user)).get("/api/v1/users")).status).toBe(200);
    expect(await auditActions(user.id)).toEqual(["user.disable", "user.enable"]);
  });

  it.each([
    [{}, 422, "invalid_body", "$"],
    [{ role: "owner" }, 422, "invalid_body", "$.role"],
    [{ disabled: "yes" }, 422, "invalid_body", "$.disabled"],
    [{ displayName: "x".repeat(129) }, 422, "invalid_body", "$.displayName"],
    [{ password: "reset" }, 422, "invalid_body", "$"],
    [{ displayName: "a\u0000b" }, 422, "invalid_body", "$.displayName"],
  ])("%j → %i %s at %s", async (body, status, code, path) => {
    const user = await createTeamUser(db.url, `bad-${Math.random().toString(36).slice(2, 8)}`, "viewer");
    expect(await errorOf(await admin.patch(`/api/v1/users/${user.id}`, body))).toEqual({
      status,
      code,
      path,
    });
  });

  it("an unknown or malformed id → 404; a responder → 403; a key, even an admin key → 403", async () => {
    expect(
      (await admin.patch("/api/v1/users/00000000-0000-4000-8000-000000000000", { role: "viewer" })).status,
    ).toBe(404);
    expect((await admin.patch("/api/v1/users/nobody", { role: "viewer" })).status).toBe(404);
    const responder = await createTeamUser(db.url, "patch-responder", "responder");
    const api = await as(responder);
    expect(await errorOf(await api.patch(`/api/v1/users/${responder.id}`, { role: "admin" }))).toMatchObject({
      status: 403,
      code: "insufficient_role",
    });
    const key = await createTestKey(db.url, "patch-admin-key", ["admin"]);
    const byKey = await fetch(`${app.baseUrl}/api/v1/users/${responder.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ role: "admin" }),
    });
    expect(byKey.status).toBe(403);
  });
});

describe("own password", () => {
  it.each([
    [{ currentPassword: "pw-user-password", newPassword: "short" }, 422, "invalid_body", "$.newPassword"],
    [{ newPassword: "a long new password" }, 422, "invalid_body", "$.currentPassword"],
    [
      { currentPassword: "not my password", newPassword: "a long new password" },
      422,
      "wrong_password",
      "$.currentPassword",
    ],
    [
      { currentPassword: "pw-user-password", newPassword: "pw-user-password" },
      422,
      "password_unchanged",
      "$.newPassword",
    ],
  ])("%j → %i %s at %s", async (body, status, code, path) => {
    const user = await createTeamUser(
      db.url,
      `pw-${Math.random().toString(36).slice(2, 8)}`,
      "viewer",
      "pw-user-password",
    );
    expect(await errorOf(await (await as(user)).post("/api/v1/me/password", body))).toEqual({
      status,
      code,
      path,
    });
  });

  it("changing it keeps this session, ends the others, and only the new password signs in", async () => {
    const user = await createTeamUser(db.url, "changer", "viewer");
    const [here, elsewhere] = [await as(user), await as(user)];
    const response = await here.post("/api/v1/me/password", {
      currentPassword: user.password,
      newPassword: "a brand new password",
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ otherSessionsEnded: 1 });
    expect((await here.get("/api/v1/me/sessions")).status).toBe(200);
    expect((await elsewhere.get("/api/v1/me/sessions")).status).toBe(401);
    await expect(signInCookie(app.baseUrl, user.username, user.password)).rejects.toThrow(/401/);
    await as(user, "a brand new password");
    const audits = await sql<{ after: string }>(
      db.url,
      "select after::text from audit_events where action = 'user.password_change' and target_id = $1",
      [user.id],
    );
    expect(audits).toHaveLength(1);
    expect(audits[0]?.after).not.toContain("brand new");
  });

  it("keys may not: an admin key → 403", async () => {
    const key = await createTestKey(db.url, "pw-admin-key", ["admin"]);
    const response = await fetch(`${app.baseUrl}/api/v1/me/sessions`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(403);
  });
});

describe("own sessions", () => {
  it("lists them with 'current' on this one; revokes one; another user's session id → 404", async () => {
    const user = await createTeamUser(db.url, "sessions-user", "responder");
    const here = await as(user);
    const other = await as(user);
    const { sessions } = (await (await here.get("/api/v1/me/sessions")).json()) as { sessions: OwnSession[] };
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ method: "password", userAgent: expect.any(String) });
    const otherId = sessions.find((s) => !s.current)?.id ?? "";
    const [adminSession] = await sql<{ id: string }>(
      db.url,
      "select s.id::text as id from user_sessions s join users u on u.id = s.user_id where u.username = 'admin' limit 1",
    );
    expect(await errorOf(await here.del(`/api/v1/me/sessions/${adminSession?.id}`))).toMatchObject({
      status: 404,
    });
    expect((await admin.get("/api/v1/users")).status).toBe(200);
    expect((await here.del("/api/v1/me/sessions/not-a-uuid")).status).toBe(404);
    expect((await here.del(`/api/v1/me/sessions/${otherId}`)).status).toBe(200);
    expect((await other.get("/api/v1/me/sessions")).status).toBe(401);
    expect((await here.del(`/api/v1/me/sessions/${otherId}`)).status).toBe(404);
    expect(await auditActions(otherId)).toEqual(["user.session_revoke"]);
  });

  it("revoke-others ends every session but this one", async () => {
    const user = await createTeamUser(db.url, "revoke-others", "viewer");
    const here = await as(user);
    const others = [await as(user), await as(user)];
    const response = await here.post("/api/v1/me/sessions/revoke-others");
    expect(await response.json()).toEqual({ ended: 2 });
    for (const api of others) expect((await api.get("/api/v1/users")).status).toBe(401);
    expect((await here.get("/api/v1/users")).status).toBe(200);
  });

  it("last_seen_at moves on a request at most once a minute", async () => {
    const user = await createTeamUser(db.url, "seen-user", "viewer");
    const api = await as(user);
    await sql(
      db.url,
      "update user_sessions set last_seen_at = now() - interval '2 minutes' where user_id = $1",
      [user.id],
    );
    const seen = async () =>
      (
        await sql<{ at: Date }>(db.url, "select last_seen_at as at from user_sessions where user_id = $1", [
          user.id,
        ])
      )[0]?.at;
    await api.get("/api/v1/users");
    const fresh = await seen();
    expect(Date.now() - (fresh?.getTime() ?? 0)).toBeLessThan(30_000);
    await api.get("/api/v1/users");
    expect((await seen())?.getTime()).toBe(fresh?.getTime());
  });
});
