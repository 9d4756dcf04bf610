import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "@/lib/server/db/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { createTestDatabase } from "@/tests/support/test-database";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrismaClient(db.url);
});
afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

describe("migrated test database", () => {
  it("has every migration recorded as `prisma migrate deploy` would", async () => {
    const rows = await prisma.$queryRaw<{ migration_name: string; finished_at: Date | null }[]>`
      select migration_name, finished_at from _prisma_migrations order by migration_name`;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.finished_at !== null)).toBe(true);
    expect(rows[0]?.migration_name).toMatch(/^\d{14}_init$/);
  });

  it("stores and reads a chain through the generated Prisma client", async () => {
    await prisma.ingestionKey.create({
      data: { name: "ci", keyHash: "h1", prefix: "rk_", scopes: ["ingest"] },
    });
    const key = await prisma.ingestionKey.findUniqueOrThrow({ where: { name: "ci" } });
    expect(key.scopes).toEqual(["ingest"]);
    expect(key.revokedAt).toBeNull();
  });

  it("rejects a second key with the same name (unique constraint, not a silent overwrite)", async () => {
    await expect(
      prisma.ingestionKey.create({ data: { name: "ci", keyHash: "h2", prefix: "rk_", scopes: [] } }),
    ).rejects.toThrow();
  });
});
