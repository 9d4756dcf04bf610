import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { build } from "@/tests/support/record-builders";
import { createTestDatabase } from "@/tests/support/test-database";
import { inject } from "vitest";

// Issue 39 §6 against the running app: a database that stops taking sessions (ALTER DATABASE … ALLOW_CONNECTIONS
// false with every backend terminated, the LISTEN connection's too) or turns read-only (a failover) answers 503
// database_unavailable, never 500, with no uncaught exception from a pool or the LISTEN client; and a client that
// hangs up in the middle of its body is not a database outage.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let key: string;
let name: string;
let admin: pg.Client;

const UNCAUGHT = /uncaughtException|unhandledRejection|Unhandled 'error' event/i;

beforeAll(async () => {
  db = await createTestDatabase();
  name = new URL(db.url).pathname.slice(1);
  key = await createTestKey(db.url, "refusing", ["ingest", "read"]);
  app = await startApp(db.url);
  admin = new pg.Client({ connectionString: inject("adminUrl") });
  await admin.connect();
}, 120_000);
afterAll(async () => {
  await admin?.query(`alter database "${name}" allow_connections true`).catch(() => {});
  await admin?.query(`alter database "${name}" reset default_transaction_read_only`).catch(() => {});
  await admin?.end();
  await app?.stop();
  await db?.drop();
});

let n = 0;
const record = () =>
  build((r) => {
    n++;
    r.recordId = `rec:refusing-${n}`;
    r.chainId = `chain:refusing-${n}`;
  });

const terminateBackends = () =>
  admin.query(
    "select count(pg_terminate_backend(pid)) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
    [name],
  );

async function expectUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe("database_unavailable");
}

async function until(ok: () => Promise<boolean>, what: string) {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    if (await ok()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("a database that refuses work", () => {
  it("not accepting connections: every batch and read 503, nothing uncaught, served again once allowed", async () => {
    const client = apiClient(app.baseUrl, key);
    expect((await client.post([record()])).status).toBe(200);
    await admin.query(`alter database "${name}" allow_connections false`);
    await terminateBackends();
    for (let i = 0; i < 4; i++) await expectUnavailable(await client.post([record()]));
    await expectUnavailable(await client.get("/api/v1/chains"));
    // The background jobs and the LISTEN client meet the same refusal meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(app.output()).not.toMatch(UNCAUGHT);
    expect(app.output()).not.toMatch(/receipt: (GET|POST) \S+ failed:/);
    expect(app.process.exitCode).toBeNull();

    await admin.query(`alter database "${name}" allow_connections true`);
    await until(async () => (await client.post([record()])).status === 200, "ingestion to come back");
    expect((await client.get("/api/v1/chains")).status).toBe(200);
    expect(app.output()).not.toMatch(UNCAUGHT);
  });

  it("read-only after a failover: writes 503 (25006), reads still served, nothing uncaught", async () => {
    const client = apiClient(app.baseUrl, key);
    await admin.query(`alter database "${name}" set default_transaction_read_only = on`);
    await terminateBackends();
    await expectUnavailable(await client.post([record()]));
    // A read may first meet a pooled connection the server ended; it is served again at once after.
    await until(
      async () => (await client.get("/api/v1/chains")).status === 200,
      "reads on a read-only database",
    );
    await admin.query(`alter database "${name}" reset default_transaction_read_only`);
    await terminateBackends();
    await until(async () => (await client.post([record()])).status === 200, "writes to come back");
    expect(app.output()).not.toMatch(UNCAUGHT);
  });
});

describe("a client that hangs up mid-body", () => {
  it("is not logged or answered as a database outage, and the next request is served", async () => {
    const before = app.output().length;
    const { port } = new URL(app.baseUrl);
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const socket = net.connect(Number(port), "127.0.0.1", () => {
          socket.write(
            [
              "POST /api/v1/records HTTP/1.1",
              `Host: 127.0.0.1:${port}`,
              `Authorization: Bearer ${key}`,
              "Content-Type: application/json",
              "Content-Length: 100000",
              "",
              `[{"recordId":"rec:half`,
            ].join("\r\n"),
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 200);
        });
        socket.on("error", reject);
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const logged = app.output().slice(before);
    expect(logged).not.toMatch(/database unavailable/);
    expect(logged).not.toMatch(/failed:/);
    expect(logged).not.toMatch(UNCAUGHT);
    expect((await apiClient(app.baseUrl, key).post([record()])).status).toBe(200);
  });
});
