import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";

// A path under /api/ that no route answers is an API error (JSON, code, path), never the dashboard's HTML page.
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

it.each([
  ["GET", "/api/v1/nothing-here"],
  ["POST", "/api/v2/records"],
  ["DELETE", "/api/v1/chains/x/y/z"],
  ["GET", "/api/triage"],
])("%s %s → 404 not_found at $.path, as JSON", async (method, path) => {
  const response = await fetch(`${app.baseUrl}${path}`, { method });
  expect(response.status).toBe(404);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = (await response.json()) as { error: { code: string; issues: { path: string }[] } };
  expect(body.error.code).toBe("not_found");
  expect(body.error.issues[0]?.path).toBe("$.path");
});
