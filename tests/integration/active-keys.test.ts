import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKey, type RunningApp, startApp } from "@/tests/support/app-server";
import { createTestDatabase } from "@/tests/support/test-database";

// The app holds the ingestion keys it has authenticated (lib/server/keys/active-keys.ts), so a request with a known
// key skips the lookup; a key changed by any path is refused as soon as the trigger's notification arrives. Each
// case changes the key behind the app's back (plain SQL, not the API), where only the notification can tell it: a key
// held without one would be accepted for the whole 30 s it may be held.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let client: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startApp(db.url);
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await app?.stop();
  await db?.drop();
});

const ask = (key: string, operation = `op-${Math.random().toString(36).slice(2)}`) =>
  fetch(`${app.baseUrl}/api/v1/operations/${operation}/attempts`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ tool: "create_report", holder: "agent-1", leaseMs: 60_000 }),
  });

/** The statuses of requests made every 20 ms until one is 401, for at most `withinMs`. */
async function refusedWithin(key: string, withinMs: number): Promise<number[]> {
  const statuses: number[] = [];
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    const status = (await ask(key)).status;
    statuses.push(status);
    if (status === 401) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return statuses;
}

/**
 * Whether the app holds this key: revoked with the triggers off, so no notification tells the app, a held key is still
 * let in (and one looked up is not). The key stays revoked.
 */
async function heldByTheApp(key: string, name: string): Promise<boolean> {
  await client.query("alter table ingestion_keys disable trigger user");
  try {
    await client.query("update ingestion_keys set revoked_at = now() where name = $1", [name]);
  } finally {
    await client.query("alter table ingestion_keys enable trigger user");
  }
  return (await ask(key)).status === 201;
}

describe("ingestion keys held by the app", () => {
  it("a key once let in is held, not looked up again; one never used is looked up", async () => {
    const used = await createTestKey(db.url, "used");
    expect((await ask(used)).status).toBe(201);
    expect(await heldByTheApp(used, "used")).toBe(true);
    const unused = await createTestKey(db.url, "unused");
    expect(await heldByTheApp(unused, "unused")).toBe(false);
  });

  it.each([
    [
      "revoked by plain SQL",
      (id: string) => `update ingestion_keys set revoked_at = now() where id = '${id}'`,
    ],
    [
      "its scopes changed by plain SQL",
      (id: string) => `update ingestion_keys set scopes = '{read}' where id = '${id}'`,
    ],
    ["deleted by plain SQL", (id: string) => `delete from ingestion_keys where id = '${id}'`],
  ])("a held key %s is refused (401 or 403) within a second", async (name, change) => {
    const key = await createTestKey(db.url, `changed-${name.split(" ")[0]}-${Date.now()}`);
    expect((await ask(key)).status).toBe(201);
    const { rows } = await client.query<{ id: string }>(
      "select id::text from ingestion_keys where revoked_at is null order by created_at desc limit 1",
    );
    await client.query(change(rows[0]?.id as string));
    const statuses: number[] = [];
    const deadline = Date.now() + 1_000;
    while (Date.now() < deadline) {
      const status = (await ask(key)).status;
      statuses.push(status);
      if (status !== 201) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect([401, 403]).toContain(statuses.at(-1));
  });

  it("truncating the table refuses every held key within a second", async () => {
    const key = await createTestKey(db.url, "before-truncate");
    expect((await ask(key)).status).toBe(201);
    await client.query("truncate ingestion_keys cascade");
    expect((await refusedWithin(key, 1_000)).at(-1)).toBe(401);
  });

  it("a key revoked while the app's listener is cut off is refused once it is back (nothing held meanwhile)", async () => {
    const key = await createTestKey(db.url, "during-outage");
    expect((await ask(key)).status).toBe(201);
    // Cut the listener and revoke in one transaction: its notification has no one to reach.
    await client.query("begin");
    await client.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'receipt-key-listener' and datname = current_database()",
    );
    await client.query("update ingestion_keys set revoked_at = now() where name = 'during-outage'");
    await client.query("commit");
    expect((await refusedWithin(key, 2_000)).at(-1)).toBe(401);
    // The listener is back (it retries after 250 ms): keys are held again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const again = await createTestKey(db.url, "after-outage");
    expect((await ask(again)).status).toBe(201);
    expect(await heldByTheApp(again, "after-outage")).toBe(true);
    expect(app.output()).toContain("ingestion-key listener reconnected");
  });

  it("with the triggers disabled, a reconnected app holds nothing (and says so); enabled again, it holds keys", async () => {
    const reconnect = async () => {
      await client.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'receipt-key-listener' and datname = current_database()",
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // it retries after 250 ms, then checks the triggers
    };
    await client.query("alter table ingestion_keys disable trigger ingestion_keys_changed");
    try {
      await reconnect();
      const key = await createTestKey(db.url, "no-triggers");
      expect((await ask(key)).status).toBe(201);
      expect(await heldByTheApp(key, "no-triggers")).toBe(false);
      expect(app.output()).toContain("the ingestion-key triggers are missing");
    } finally {
      await client.query("alter table ingestion_keys enable trigger ingestion_keys_changed");
    }
    await reconnect();
    const key = await createTestKey(db.url, "triggers-back");
    expect((await ask(key)).status).toBe(201);
    expect(await heldByTheApp(key, "triggers-back")).toBe(true);
  });
});
