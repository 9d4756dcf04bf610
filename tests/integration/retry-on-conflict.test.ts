import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { isTransactionConflict, isTransactionTimeout } from "@/lib/server/db/availability";
import { createPrismaClient } from "@/lib/server/db/client";
import { retryOnConflict } from "@/lib/server/db/retry-on-conflict";
import { createTestDatabase } from "@/tests/support/test-database";

// A real deadlock (40P01) through Prisma and @prisma/adapter-pg, as the routing config save met one with ingestion
// (issue 39 §5): the victim's error is recognised however Prisma wraps it, and retryOnConflict runs the transaction
// again, whole, until it commits.
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let prisma: PrismaClient;
let other: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrismaClient(db.url);
  other = new pg.Client({ connectionString: db.url });
  await other.connect();
  await other.query("create table deadlock_rows (id int primary key, n int not null)");
  await other.query("insert into deadlock_rows values (1, 0), (2, 0)");
}, 60_000);

afterAll(async () => {
  await other?.end();
  await prisma?.$disconnect();
  await db?.drop();
});

/**
 * One deadlock whose victim is Prisma's transaction: the plain client holds row 2 and, once Prisma holds row 1, asks
 * for row 1 while Prisma asks for row 2. The plain session checks for deadlocks only after 10 s, Prisma's after the
 * default 1 s, so PostgreSQL aborts Prisma's side (40P01); the plain side then gets row 1 and commits.
 * `run` wraps the transaction (retryOnConflict, or nothing). Resolves with the attempts made and what `run` returned.
 */
async function deadlockPrisma(run: (transaction: () => Promise<void>) => Promise<void>) {
  await other.query("update deadlock_rows set n = 0");
  await other.query("set deadlock_timeout = '10s'");
  await other.query("begin");
  await other.query("update deadlock_rows set n = n + 1 where id = 2");
  let attempts = 0;
  let otherDone: Promise<unknown> = Promise.resolve();
  const outcome = await run(() =>
    prisma.$transaction(async (tx) => {
      attempts++;
      // A retry waits for the plain side's commit: woken by the victim's abort but not yet run (a loaded machine),
      // that side would find row 1 taken by the retry and deadlock with it again (a third attempt in CI).
      if (attempts > 1) await otherDone;
      await tx.$executeRaw`update deadlock_rows set n = n + 1 where id = 1`;
      if (attempts === 1) {
        otherDone = other
          .query("update deadlock_rows set n = n + 1 where id = 1")
          .then(() => other.query("commit"));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await tx.$executeRaw`update deadlock_rows set n = n + 1 where id = 2`;
    }),
  ).then(
    () => null,
    (error: unknown) => error,
  );
  await otherDone;
  const { rows } = await other.query<{ n: number }>("select n from deadlock_rows order by id");
  return { attempts, error: outcome, counts: rows.map((row) => row.n) };
}

describe("a real deadlock through Prisma", () => {
  it("without a retry, the victim's error is recognised as a conflict, and an ordinary error is not", async () => {
    const { attempts, error, counts } = await deadlockPrisma((transaction) => transaction());
    expect(attempts).toBe(1);
    expect(isTransactionConflict(error)).toBe(true);
    expect(counts).toEqual([1, 1]); // only the plain side committed
    const notConflict = await prisma.$executeRaw`select 1 / 0`.catch((caught: unknown) => caught);
    expect(isTransactionConflict(notConflict)).toBe(false);
  }, 30_000);

  it("retryOnConflict runs the victim again, whole, and it commits once", async () => {
    const { attempts, error, counts } = await deadlockPrisma((transaction) => retryOnConflict(transaction));
    expect(error).toBeNull();
    expect(attempts).toBe(2);
    expect(counts).toEqual([2, 2]); // each side's two increments, none lost and none doubled
  }, 30_000);
});

describe("a Prisma transaction past its timeout", () => {
  it("is recognised as a timeout (P2028), not as a conflict, and wrote nothing", async () => {
    await other.query("update deadlock_rows set n = 0");
    const error = await prisma
      .$transaction(
        async (tx) => {
          await tx.$executeRaw`update deadlock_rows set n = 7 where id = 1`;
          await tx.$executeRaw`select pg_sleep(0.5)`;
        },
        { timeout: 100 },
      )
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect(isTransactionTimeout(error)).toBe(true);
    expect(isTransactionConflict(error)).toBe(false);
    const { rows } = await other.query<{ n: number }>("select n from deadlock_rows order by id");
    expect(rows.map((row) => row.n)).toEqual([0, 0]);
    const notTimeout = await prisma.$executeRaw`select 1 / 0`.catch((caught: unknown) => caught);
    expect(isTransactionTimeout(notTimeout)).toBe(false);
  }, 30_000);
});
