import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { readEnv } from "../env";

// One pool and one client per process, sharing the pool (see sql.ts). Next.js dev reloads modules, so they are
// kept on globalThis.
const globalForPrisma = globalThis as unknown as { receiptPrisma?: PrismaClient; receiptPool?: pg.Pool };

export function createPrismaClient(connectionString: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max: 10 }) });
}

export function getPool(): pg.Pool {
  if (!globalForPrisma.receiptPool || globalForPrisma.receiptPool.ended) {
    const url = readEnv().DATABASE_URL;
    if (!url)
      throw new Error("DATABASE_URL is not set: start the app with `npm start` (it resolves the database)");
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    // An idle connection dropped by the server (restart, failover) must not crash the process; the pool
    // replaces it on the next checkout.
    pool.on("error", (error) => console.error(`database connection lost: ${error.message}`));
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
