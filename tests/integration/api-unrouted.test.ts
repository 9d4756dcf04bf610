import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";

// A path under /api/ that no route answers, or a method a route does not take, is an API error (JSON, code, path),
// never the dashboard's HTML page or an empty body.
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

// Next.js answers a method a route does not export with an empty 405; the API says which code and what is allowed.
it.each([
  ["DELETE", "/api/v1/chains", "GET"],
  ["GET", "/api/v1/records", "POST"],
  ["GET", "/api/v1/keys/some-key", "DELETE"],
  ["PATCH", "/api/v1/routing/config", "GET, PUT"],
  ["POST", "/api/health", "GET"],
  ["PUT", "/metrics", "GET"],
])("%s %s → 405 method_not_allowed at $.method, Allow: %s", async (method, path, allow) => {
  const response = await fetch(`${app.baseUrl}${path}`, { method });
  expect(response.status).toBe(405);
  expect(response.headers.get("allow")).toBe(allow);
  const body = (await response.json()) as { error: { code: string; issues: { path: string }[] } };
  expect(body.error.code).toBe("method_not_allowed");
  expect(body.error.issues[0]?.path).toBe("$.method");
});
