import { execFile } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningApp, startApp } from "@/tests/support/app-server";
import { createTeamUser, signInCookie } from "@/tests/support/team-users";
import { createTestDatabase } from "@/tests/support/test-database";

// A first run never locks you out (issue 41 §2): a database seeded with demo users but no admin keeps /setup open,
// and `npm run users -- create` makes an admin from the command line either way.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;

beforeAll(async () => {
  db = await createTestDatabase();
  // What `npm run db:seed` leaves: a demo user who is not an admin.
  await createTeamUser(db.url, "demo", "responder");
  app = await startApp(db.url);
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await db?.drop();
});

const post = (route: string, body: unknown) =>
  fetch(`${app.baseUrl}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.baseUrl },
    body: JSON.stringify(body),
  });

function users(args: string[], input: string | null, env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ["--import", "tsx", "scripts/users.ts", ...args],
      {
        cwd: path.resolve(import.meta.dirname, "../.."),
        env: { ...process.env, DATABASE_URL: db.url, ...env },
      },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
    child.stdin?.end(input ?? "");
  });
}

describe("setup while no admin exists", () => {
  it("stays open beside a seeded demo user: /sign-in leads there, and the admin is created once", async () => {
    const signIn = await fetch(`${app.baseUrl}/sign-in`, { redirect: "manual" });
    expect(signIn.status).toBe(307);
    expect(signIn.headers.get("location")).toMatch(/\/setup$/);
    expect((await fetch(`${app.baseUrl}/setup`, { redirect: "manual" })).status).toBe(200);

    const taken = await post("/api/auth/setup", { username: "DEMO", password: "a long enough password" });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({
      error: { code: "username_taken", issues: [{ path: "$.username", code: "username_taken" }] },
    });
    const created = await post("/api/auth/setup", { username: "owner", password: "a long enough password" });
    expect(created.status).toBe(200);
    const again = await post("/api/auth/setup", { username: "mallory", password: "another password" });
    expect(again.status).toBe(409);
    expect((await again.json()).error.code).toBe("already_set_up");
    expect((await fetch(`${app.baseUrl}/setup`, { redirect: "manual" })).status).toBe(307);
  });
});

describe("npm run users -- create", () => {
  it("creates an admin who can sign in; the password from the environment or standard input", async () => {
    const made = await users(["create", "--username", "ops", "--role", "admin"], null, {
      RECEIPT_NEW_PASSWORD: "ops password 123",
    });
    expect(made).toMatchObject({ code: 0, stdout: "created admin ops\n" });
    expect(await signInCookie(app.baseUrl, "ops", "ops password 123")).toMatch(/^receipt_session=/);
    const piped = await users(["create", "--username", "viewer1", "--role", "viewer"], "piped password 1\n");
    expect(piped).toMatchObject({ code: 0, stdout: "created viewer viewer1\n" });
    expect(await signInCookie(app.baseUrl, "viewer1", "piped password 1")).toMatch(/^receipt_session=/);
  });

  it("refuses a taken name (without case), a bad role, a short password and bad usage, creating nothing", async () => {
    const env = { RECEIPT_NEW_PASSWORD: "long enough 123" };
    expect(await users(["create", "--username", "OPS"], null, env)).toMatchObject({
      code: 1,
      stderr: "a user named 'OPS' exists already (names are compared without case)\n",
    });
    expect((await users(["create", "--username", "x", "--role", "root"], null, env)).code).toBe(1);
    expect((await users(["create", "--username", "bad name"], null, env)).code).toBe(1);
    expect((await users(["create", "--username", "shorty"], "short\n")).stderr).toContain(
      "at least 8 characters",
    );
    expect((await users(["delete", "--username", "ops"], null, env)).code).toBe(2);
  });
});
