import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LISTENER_NAME, startWakeListener, type WakeListener } from "@/lib/server/db/wake-listener";
import { notifyWake, onWakeHere, WAKE_CHANNELS, type WakeChannel } from "@/lib/server/db/wake-notify";
import { portOutsideEphemeralRange } from "@/tests/support/ports";
import { createTestDatabase } from "@/tests/support/test-database";

// The LISTEN connection on a real PostgreSQL: it hears committed notifications only, and when the server drops it
// (pg_terminate_backend, as a restart or failover would) it reconnects, logging the loss and the recovery once each.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let admin: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
});
afterAll(async () => {
  const { getPool } = await import("@/lib/server/db/client");
  await getPool().end();
  await admin?.end();
  await db?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe("wake listener", () => {
  let listener: WakeListener;
  const heard: WakeChannel[] = [];
  let connections = 0;

  afterAll(() => listener?.stop());

  it("hears committed notifications on both channels, never rolled-back ones", async () => {
    listener = startWakeListener({
      connectionString: db.url,
      onWake: (channel) => heard.push(channel),
      onConnected: () => connections++,
      firstRetryMs: 50,
      maxRetryMs: 200,
    });
    await until(() => connections === 1, "the first connection");
    await admin.query("begin");
    await admin.query("select pg_notify($1, '')", [WAKE_CHANNELS.alertOutbox]);
    await admin.query("rollback");
    await admin.query("select pg_notify($1, '')", [WAKE_CHANNELS.deliveries]);
    await admin.query("select pg_notify('some_other_channel', '')");
    await until(() => heard.length > 0, "the committed notification");
    await sleep(200);
    expect(heard).toEqual([WAKE_CHANNELS.deliveries]);
  });

  it("reconnects after the server drops it, logging the loss and the recovery once each", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      // Dropped three times in a row, before and while it reconnects.
      for (let i = 0; i < 3; i++) {
        await admin.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1",
          [LISTENER_NAME],
        );
        await sleep(30);
      }
      await until(async () => {
        const { rows } = await admin.query(
          "select count(*)::int as n from pg_stat_activity where application_name = $1 and query ilike 'listen%'",
          [LISTENER_NAME],
        );
        return rows[0]?.n === 1 && connections >= 2;
      }, "the reconnection");
      heard.length = 0;
      await admin.query("select pg_notify($1, '')", [WAKE_CHANNELS.alertOutbox]);
      await until(() => heard.length > 0, "a notification after the reconnection");
      expect(heard).toEqual([WAKE_CHANNELS.alertOutbox]);
      const logged = errors.mock.calls.map((call) => String(call[0]));
      expect(logged.filter((line) => line.includes("lost its connection")).length).toBeLessThanOrEqual(
        connections - 1,
      );
      expect(logged.filter((line) => line.includes("reconnected"))).toHaveLength(
        logged.filter((line) => line.includes("lost its connection")).length,
      );
      expect(logged.length).toBeGreaterThan(0);
    } finally {
      errors.mockRestore();
    }
  });

  it("retries an unreachable database quietly: one line, however many attempts", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const connects = vi.spyOn(pg.Client.prototype, "connect");
    const unreachable = startWakeListener({
      connectionString: `postgres://nobody@127.0.0.1:${await portOutsideEphemeralRange()}/none`,
      onWake: () => {},
      onConnected: () => {},
      firstRetryMs: 20,
      maxRetryMs: 40,
    });
    try {
      await until(() => connects.mock.calls.length >= 6, "several attempts");
      expect(
        errors.mock.calls.filter((call) => String(call[0]).includes("lost its connection")),
      ).toHaveLength(1);
      expect(String(errors.mock.calls[0]?.[0])).toContain("the database is unavailable");
    } finally {
      await unreachable.stop();
      connects.mockRestore();
      errors.mockRestore();
    }
  });
});

describe("in-process wake-ups", () => {
  it("a commit wakes this instance directly, without its LISTEN connection; a rollback does not", async () => {
    const { inTransaction } = await import("@/lib/server/db/sql");
    const woken: WakeChannel[] = [];
    onWakeHere((channel) => woken.push(channel));
    await expect(
      inTransaction(async (sql) => {
        await notifyWake(sql, WAKE_CHANNELS.alertOutbox);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(woken).toEqual([]);
    await inTransaction(async (sql) => {
      await notifyWake(sql, WAKE_CHANNELS.deliveries);
      expect(woken).toEqual([]); // not before the commit
    });
    expect(woken).toEqual([WAKE_CHANNELS.deliveries]);
  });
});
