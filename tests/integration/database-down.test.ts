import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CollectorRecord, ReceiptSink } from "@/packages/collector/src";
import { type RunningDatabase, startEmbeddedPostgres } from "@/lib/server/db/embedded";
import { applyMigrations } from "@/lib/server/db/migrate";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { adminCookie } from "@/tests/support/dashboard-session";
import { build } from "@/tests/support/record-builders";

// The app in front of a PostgreSQL of its own, which the test stops and starts again under it: every request answers
// 503 database_unavailable with Retry-After while it is down (never a 500), and the same app serves again once it is
// back, without a restart.
const dataDir = mkdtempSync(path.join(tmpdir(), "receipt-db-down-"));
let db: RunningDatabase | undefined;
let app: RunningApp | undefined;
let key: string;
let cookie: string;
let port: number;

beforeAll(async () => {
  db = await startEmbeddedPostgres(path.join(dataDir, "pg"));
  port = Number(new URL(db.url).port);
  await applyMigrations(db.url);
  key = await createTestKey(db.url, "db-down", ["ingest", "read"]);
  app = await startApp(db.url);
  cookie = await adminCookie(app.baseUrl);
});
afterAll(async () => {
  await app?.stop();
  await db?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function record(n: number) {
  return build((r) => {
    r.recordId = `rec:db-down-${n}`;
    r.chainId = `chain:db-down-${n}`;
  });
}

async function expectUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  const body = (await response.json()) as { error: { code: string } };
  expect(body.error.code).toBe("database_unavailable");
}

function send(method: string, route: string, headers: Record<string, string>, body?: unknown) {
  return fetch(`${app?.baseUrl}${route}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe("PostgreSQL stopped under a running app", () => {
  it("answers 503 database_unavailable with Retry-After everywhere, then serves again once it is back", async () => {
    const client = apiClient(app?.baseUrl ?? "", key);
    expect((await client.post([record(1)])).status).toBe(200);

    await db?.stop();

    // The collector's sink, sending meanwhile: it must wait as told by Retry-After (not its 10 ms backoff) and
    // deliver once the database is back.
    const attempts: { at: number; status: number }[] = [];
    const sink = new ReceiptSink({
      baseUrl: app?.baseUrl ?? "",
      ingestionKey: key,
      flushIntervalMs: 0,
      baseDelayMs: 10,
      maxDelayMs: 10_000,
      maxAttempts: 6,
      flushTimeoutMs: 60_000,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        attempts.push({ at: Date.now(), status: response.status });
        return response;
      },
    });
    sink.submit([record(9) as unknown as CollectorRecord]);
    const delivery = sink.flush();

    await expectUnavailable(await client.post([record(2)]));
    // Repeated: the first attempt meets the pool's dead idle connections, later ones a refused connect.
    await expectUnavailable(await client.post([record(3)]));
    const bearer = { authorization: `Bearer ${key}` };
    for (const route of [
      "/api/v1/chains",
      "/api/v1/chains/chain%3Adb-down-1",
      "/api/v1/stats",
      "/api/v1/sessions/s-1",
      "/api/v1/coverage",
      "/api/v1/attention",
    ]) {
      await expectUnavailable(await send("GET", route, bearer));
    }
    for (const route of ["/api/v1/stats", "/api/v1/keys", "/api/v1/routing/config", "/api/auth/me"]) {
      await expectUnavailable(await send("GET", route, { cookie }));
    }
    await expectUnavailable(
      await send("POST", "/api/v1/keys", { cookie }, { name: "while-down", scopes: ["ingest"] }),
    );
    await expectUnavailable(
      await send("POST", "/api/auth/sign-in", {}, { username: "admin", password: "correct horse battery" }),
    );

    const health = await send("GET", "/api/health", {});
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: "degraded", database: "unreachable" });

    // Pages rendered on the server say what is wrong instead of failing.
    for (const page of ["/", "/chains", "/sign-in"]) {
      const response = await send("GET", page, { cookie });
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain("Database unavailable");
      expect(html).toContain("database_unavailable");
    }
    // Nothing was reported as an internal error (background jobs do log each failed tick, and keep ticking).
    expect(app?.output()).not.toMatch(/receipt: (GET|POST) \S+ failed:|auth route failed/);
    expect(app?.process.exitCode).toBeNull();

    db = await startEmbeddedPostgres(path.join(dataDir, "pg"), { port });
    const deadline = Date.now() + 15_000;
    let health200 = false;
    while (!health200 && Date.now() < deadline) {
      health200 = (await send("GET", "/api/health", {})).status === 200;
      if (!health200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(health200).toBe(true);
    const again = await client.post([record(2)]);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { results: { duplicate: boolean }[] }).results[0]?.duplicate).toBe(false);
    expect((await send("GET", "/api/v1/chains/chain%3Adb-down-1", bearer)).status).toBe(200);

    expect((await delivery).delivered).toBe(1);
    expect(attempts[0]?.status).toBe(503);
    expect(attempts.at(-1)?.status).toBe(200);
    for (let i = 1; i < attempts.length; i++) {
      expect((attempts[i]?.at ?? 0) - (attempts[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(4_900);
    }
    const page = await send("GET", "/", { cookie });
    expect(await page.text()).not.toContain("Database unavailable");
  });
});
