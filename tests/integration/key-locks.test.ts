import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningDatabase, startEmbeddedPostgres } from "@/lib/server/db/embedded";
import { lockKeys } from "@/lib/server/db/key-locks";
import { sqlOver } from "@/lib/server/db/sql";
import { createTestDatabase } from "@/tests/support/test-database";

// How many locks a writer of a family takes depends on the server's lock table: on PostgreSQL's default
// (max_locks_per_transaction 64, the tests' shared cluster) a batch of 1000 records (2000 keys) takes the family's
// lock alone and other writers wait; on the embedded server's larger table it locks its keys one by one, so a second
// batch of other keys runs beside it.

const keys = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}:${String(i).padStart(5, "0")}`);

/** Opens a transaction on its own connection to `url`, with a lock timeout so a wait fails fast instead of hanging. */
async function openTransaction(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("begin");
  await client.query("set local lock_timeout = '500ms'");
  let ended = false;
  return {
    client,
    lock: (family: "chains" | "otlp-sessions", list: string[]) => lockKeys(sqlOver(client), family, list),
    /** The advisory locks this transaction holds, by mode. */
    held: async () => {
      const { rows } = await client.query<{ mode: string; n: number }>(
        `select mode, count(*)::int as n from pg_locks
          where locktype = 'advisory' and pid = pg_backend_pid() and granted group by mode order by mode`,
      );
      return Object.fromEntries(rows.map((row) => [row.mode, row.n]));
    },
    end: async () => {
      if (ended) return;
      ended = true;
      await client.query("rollback").catch(() => {});
      await client.end();
    },
  };
}

describe("on PostgreSQL's default lock table", () => {
  let db: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it("locks up to 512 keys one by one under the family's shared lock, and past that the family alone", async () => {
    const small = await openTransaction(db.url);
    const large = await openTransaction(db.url);
    try {
      const { rows } = await small.client.query("select current_setting('max_locks_per_transaction') as v");
      expect(rows[0].v).toBe("64");
      expect(await small.lock("chains", keys("small", 512))).toBe(false);
      // 512 key locks (exclusive), and the family's (shared).
      expect(await small.held()).toEqual({ ExclusiveLock: 512, ShareLock: 1 });
      await small.end();
      expect(await large.lock("chains", keys("large", 2000))).toBe(true);
      expect(await large.held()).toEqual({ ExclusiveLock: 1 });
    } finally {
      await small.end();
      await large.end();
    }
  });

  it("makes a writer of other keys wait while one holds the family's lock", async () => {
    const large = await openTransaction(db.url);
    const other = await openTransaction(db.url);
    try {
      await large.lock("chains", keys("large", 2000));
      await expect(other.lock("chains", keys("other", 10))).rejects.toMatchObject({ code: "55P03" });
      // Another family is not held up.
      expect(await (await openSession(other)).lock("otlp-sessions", keys("s", 10))).toBe(false);
    } finally {
      await large.end();
      await other.end();
    }
  });

  /** A fresh transaction on the same connection (the last one failed on its lock timeout). */
  async function openSession(transaction: Awaited<ReturnType<typeof openTransaction>>) {
    await transaction.client.query("rollback");
    await transaction.client.query("begin");
    await transaction.client.query("set local lock_timeout = '500ms'");
    return transaction;
  }
});

describe("on the embedded server's lock table", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "receipt-key-locks-"));
  let server: RunningDatabase | undefined;
  beforeAll(async () => {
    server = await startEmbeddedPostgres(path.join(dataDir, "pg"));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("locks a batch of 1000 records' 2000 keys one by one, so another batch runs beside it", async () => {
    const url = server?.url as string;
    const first = await openTransaction(url);
    const second = await openTransaction(url);
    try {
      const { rows } = await first.client.query(
        `select current_setting('max_locks_per_transaction') as locks, current_setting('max_connections') as conns,
          current_setting('max_prepared_transactions') as prepared`,
      );
      expect(rows[0]).toEqual({ locks: "1024", conns: "100", prepared: "0" });
      expect(await first.lock("chains", keys("first", 2000))).toBe(false);
      expect(await first.held()).toEqual({ ExclusiveLock: 2000, ShareLock: 1 });
      // Not waiting: the lock timeout would fail it.
      expect(await second.lock("chains", keys("second", 2000))).toBe(false);
      expect(await second.held()).toEqual({ ExclusiveLock: 2000, ShareLock: 1 });
    } finally {
      await first.end();
      await second.end();
    }
  });

  it("waits for a key another writer holds, and past a thirty-second of the table takes the family alone", async () => {
    const url = server?.url as string;
    const holder = await openTransaction(url);
    const same = await openTransaction(url);
    const huge = await openTransaction(url);
    try {
      await holder.lock("chains", keys("shared", 2000));
      await expect(same.lock("chains", ["shared:01999"])).rejects.toMatchObject({ code: "55P03" });
      // 1024 × (100 connections) / 32 = 3200 keys at most one by one: 3201 take the family's lock, which waits for
      // the holder's shared one.
      await expect(huge.lock("chains", keys("huge", 3201))).rejects.toMatchObject({ code: "55P03" });
      await holder.end();
      await huge.client.query("rollback");
      await huge.client.query("begin");
      expect(await huge.lock("chains", keys("huge", 3201))).toBe(true);
      expect(await huge.held()).toEqual({ ExclusiveLock: 1 });
    } finally {
      await holder.end();
      await same.end();
      await huge.end();
    }
  });
});
