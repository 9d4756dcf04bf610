import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { readEnv } from "../env";

// One pool and one client per process, sharing the pool (see sql.ts). Next.js dev reloads modules, so they are
// kept on globalThis.
const globalForPrisma = globalThis as unknown as { receiptPrisma?: PrismaClient; receiptPool?: pg.Pool };

/**
 * A new connection takes ~12 ms to open and then a few ms for each relation its first statements touch (a rollup and
 * `chains`: 7 ms, against 1 ms on a warm connection, at 10 M chains), so the first read after the pool dropped its
 * idle connections paid that on every connection it opens at once (the problems page uses three). pg's default dropped them after 10 s, less than an
 * operator takes between two clicks; a minute outlasts the dashboard's refresh. `allowExitOnIdle`: a CLI still exits
 * once its work is done instead of holding idle connections open.
 */
const POOL_OPTIONS = { max: 10, idleTimeoutMillis: 60_000, allowExitOnIdle: true };

export function createPrismaClient(connectionString: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, ...POOL_OPTIONS }) });
}

export function getPool(): pg.Pool {
  if (!globalForPrisma.receiptPool || globalForPrisma.receiptPool.ended) {
    const url = readEnv().DATABASE_URL;
    if (!url)
      throw new Error("DATABASE_URL is not set: start the app with `npm start` (it resolves the database)");
    const pool = new pg.Pool({ connectionString: url, ...POOL_OPTIONS });
    // An idle connection dropped by the server (restart, failover) must not crash the process; the pool
    // replaces it on the next checkout.
    pool.on("error", (error) => console.error(`database connection lost: ${error.message}`));
    // pg-pool listens for errors only while a connection is idle: one checked out and between two statements (a
    // transaction awaiting its caller, a job) that the server ends emits 'error' to nobody, an uncaughtException.
    // Its statements fail on their own (the caller answers 503) and the pool drops it when it is released.
    pool.on("connect", (client) => client.on("error", () => {}));
    globalForPrisma.receiptPool = pool;
  }
  return globalForPrisma.receiptPool;
}

export function getPrisma(): PrismaClient {
  globalForPrisma.receiptPrisma ??= new PrismaClient({
    adapter: new PrismaPg(getPool(), { disposeExternalPool: true }),
  });
  return globalForPrisma.receiptPrisma;
}
