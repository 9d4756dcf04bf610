import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client";

// One client per process. Next.js dev reloads modules, so the instance is kept on globalThis.
const globalForPrisma = globalThis as unknown as { receiptPrisma?: PrismaClient };

export function createPrismaClient(connectionString: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max: 10 }) });
}

export function getPrisma(): PrismaClient {
  if (!globalForPrisma.receiptPrisma) {
    const url = process.env.DATABASE_URL;
    if (!url)
      throw new Error("DATABASE_URL is not set: start the app with `npm start` (it resolves the database)");
    globalForPrisma.receiptPrisma = createPrismaClient(url);
  }
  return globalForPrisma.receiptPrisma;
}
